//! The `quiver` binary.

mod backup;
mod cdc;
mod client;
mod dump;
mod import;
mod serve;

use std::io::Read;
use std::process::ExitCode;

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
    /// Serve Bolt and HTTP until SIGTERM or SIGINT. Every flag has a QUIVER_* environment
    /// equivalent (flag > environment > --config file > default).
    Serve(serve::ServeArgs),
    /// The load laboratory: verified load over Bolt against an in-process server or any
    /// `--target`, a connection ladder, connection experiments and artefacts.
    Lab(Box<quiver_lab::LabArgs>),
    /// Read a password from standard input and print its argon2id hash, for the `password_hash`
    /// of a `[[users]]` entry in the configuration file.
    HashPassword,
    /// Build a data directory from CSV files in Neo4j's import format (the flags of
    /// `neo4j-admin database import full`), offline: `quiver serve --data-dir` then opens it.
    Import(Box<import::ImportArgs>),
    /// Take an online backup from a running server's HTTP listener (as an administrator):
    /// the first into a directory is full, the next ones incremental. `--inspect DIR` lists
    /// and checks a backup directory.
    Backup(Box<backup::BackupArgs>),
    /// Rebuild a data directory from a backup directory, to its last transaction or to a
    /// point in time (`--restore-until`).
    Restore(Box<backup::RestoreArgs>),
    /// Print a running server's changes (change data capture) as JSON lines: those after
    /// `--cursor`, or all its log holds; `--follow` keeps printing new ones.
    Cdc(Box<cdc::CdcArgs>),
    /// Write a data directory no server holds to one compressed, checksummed file.
    Dump(dump::DumpArgs),
    /// Build a data directory from a dump file.
    Load(dump::LoadArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Version => {
            println!("quiver {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Command::Serve(args) => serve::run(args),
        Command::Lab(args) => quiver_lab::main(*args),
        Command::HashPassword => hash_password(),
        Command::Import(args) => import::run_import(*args),
        Command::Backup(args) => backup::run_backup(*args),
        Command::Restore(args) => backup::run_restore(*args),
        Command::Cdc(args) => cdc::run_cdc(*args),
        Command::Dump(args) => dump::run_dump(args),
        Command::Load(args) => dump::run_load(args),
    }
}

/// Longest password read from standard input.
const PASSWORD_BYTES_MAX: u64 = 1024;

fn hash_password() -> ExitCode {
    let mut input = String::new();
    if let Err(error) = std::io::stdin()
        .take(PASSWORD_BYTES_MAX + 1)
        .read_to_string(&mut input)
    {
        eprintln!("quiver: cannot read the password: {error}");
        return ExitCode::from(2);
    }
    let password = input.trim_end_matches(['\r', '\n']);
    if let Err(reason) = quiver_server::config::check_password(password) {
        eprintln!("quiver: {reason}");
        return ExitCode::from(2);
    }
    match quiver_server::auth::hash_password(password) {
        Ok(hash) => {
            println!("{hash}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("quiver: {error}");
            ExitCode::FAILURE
        }
    }
}
