//! `quiver dump` and `quiver load`: a data directory as one compressed, checksummed file and
//! back, offline, spelled as `neo4j-admin database dump` and `load` spell them. The format is
//! `quiver_durability::dump`'s.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use quiver_durability::dump::{dump, load};

#[derive(clap::Args)]
pub struct DumpArgs {
    /// The data directory to dump (no server may hold it).
    #[arg(long, value_name = "DIR")]
    data_dir: PathBuf,
    /// The dump file to write (it must not exist).
    #[arg(long, value_name = "FILE")]
    to_path: PathBuf,
}

#[derive(clap::Args)]
pub struct LoadArgs {
    /// The dump file to read.
    #[arg(long, value_name = "FILE")]
    from_path: PathBuf,
    /// The data directory to create (absent or empty); `quiver serve --data-dir` opens it.
    #[arg(long, value_name = "DIR")]
    data_dir: PathBuf,
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

pub fn run_dump(args: DumpArgs) -> ExitCode {
    let started = Instant::now();
    eprintln!("dump: reading {}", args.data_dir.display());
    let mut progress = |bytes| eprintln!("dump: {:.1} MiB compressed", mib(bytes));
    match dump(&args.data_dir, &args.to_path, &mut progress) {
        Ok(report) => {
            println!(
                "dumped {} (commit {}, {:.1} MiB) to {} ({:.1} MiB) in {:.2} s",
                args.data_dir.display(),
                report.commit,
                mib(report.bytes),
                args.to_path.display(),
                mib(report.file_bytes),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("quiver dump: {e}");
            ExitCode::FAILURE
        }
    }
}

pub fn run_load(args: LoadArgs) -> ExitCode {
    let started = Instant::now();
    eprintln!("load: reading {}", args.from_path.display());
    let mut progress = |bytes| eprintln!("load: {:.1} MiB written", mib(bytes));
    match load(&args.from_path, &args.data_dir, &mut progress) {
        Ok(report) => {
            println!(
                "loaded {} (commit {}, {:.1} MiB) into {} in {:.2} s",
                args.from_path.display(),
                report.commit,
                mib(report.bytes),
                args.data_dir.display(),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("quiver load: {e}");
            eprintln!(
                "quiver load: nothing was written to {}",
                args.data_dir.display()
            );
            ExitCode::FAILURE
        }
    }
}
