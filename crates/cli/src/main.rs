//! The `quiver` binary.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "quiver", version, about = "Quiver: a graph database server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the version and exit.
    Version,
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        Command::Version => println!("quiver {}", env!("CARGO_PKG_VERSION")),
    }
}
