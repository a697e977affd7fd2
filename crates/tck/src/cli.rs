//! The `quiver-tck` command line, kept in the library so it is testable and the binary stays a
//! few lines that pick the target.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::feature::load_directory;
use crate::report::{Ratchet, RatchetError};
use crate::runner::{
    RunError, RunOptions, SCENARIO_TIMEOUT_MS_DEFAULT, WORKER_THREAD_NAME, run_directory,
};
use crate::target::{Target, TargetError};

/// Runs openCypher TCK feature files against Quiver.
#[derive(Debug, clap::Parser)]
#[command(name = "quiver-tck", version)]
pub struct Args {
    /// Directory of `.feature` files, searched recursively (or one feature file).
    pub dir: PathBuf,
    /// Write one line per scenario here: feature, scenario, outline row, status, reason.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Fail if a scenario listed in this file does not pass.
    #[arg(long)]
    pub ratchet: Option<PathBuf>,
    /// Rewrite the ratchet file with the scenarios that pass now.
    #[arg(long, requires = "ratchet")]
    pub update_ratchet: bool,
    /// Run only scenarios whose feature path or name contains this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// Time budget per scenario, in milliseconds.
    #[arg(long, default_value_t = SCENARIO_TIMEOUT_MS_DEFAULT)]
    pub timeout_ms: u64,
    /// Directory of named graphs (default: the nearest `graphs` directory beside the features).
    #[arg(long)]
    pub graphs: Option<PathBuf>,
    /// Parse and count the scenarios without running them.
    #[arg(long)]
    pub count: bool,
    /// Print every scenario that does not pass.
    #[arg(long)]
    pub verbose: bool,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Ratchet(#[from] RatchetError),
    #[error("cannot create the target: {0}")]
    Target(#[from] TargetError),
    #[error("cannot write: {0}")]
    Io(#[from] std::io::Error),
}

/// Keeps panics on worker threads out of the output: the runner already reports them, with
/// their message, as the scenario's ERROR reason.
pub fn silence_worker_panics() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some(WORKER_THREAD_NAME) {
            default_hook(info);
        }
    }));
}

/// Runs the command and maps the result to an exit status: 0 when no ratchet entry regressed,
/// 1 when one did, 2 when the run itself could not happen.
pub fn main<T, F>(args: &Args, make_target: F) -> ExitCode
where
    T: Target + 'static,
    F: FnMut() -> Result<T, TargetError>,
{
    let mut stdout = std::io::stdout().lock();
    match run(args, make_target, &mut stdout) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            let _ = stdout.flush();
            eprintln!("quiver-tck: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs the command, printing to `out`. `Ok(false)` means a ratchet entry regressed.
pub fn run<T, F>(args: &Args, mut make_target: F, out: &mut dyn Write) -> Result<bool, CliError>
where
    T: Target + 'static,
    F: FnMut() -> Result<T, TargetError>,
{
    if args.count {
        count(args, out)?;
        return Ok(true);
    }
    // Create the first target up front: if there is none, say so once instead of once per
    // scenario.
    let mut first = Some(make_target()?);
    let factory = move || match first.take() {
        Some(target) => Ok(target),
        None => make_target(),
    };
    let options = RunOptions {
        filter: args.filter.clone(),
        scenario_timeout_ms: args.timeout_ms,
        graphs_dir: args.graphs.clone(),
    };
    let report = run_directory(&args.dir, factory, &options)?;
    if let Some(path) = &args.report {
        std::fs::write(path, report.scenario_lines())?;
    }
    if args.verbose {
        for line in report
            .scenario_lines()
            .lines()
            .filter(|line| !line.contains("\tPASS\t"))
        {
            writeln!(out, "{line}")?;
        }
    }
    for error in &report.feature_errors {
        writeln!(out, "feature file error: {error}")?;
    }
    let mut ok = true;
    if let Some(path) = &args.ratchet {
        let ratchet = Ratchet::load(path)?;
        let filter = args.filter.as_deref();
        let regressions = ratchet.regressions(&report, filter);
        if args.update_ratchet {
            let updated = ratchet.updated(&report, filter);
            updated.save(path)?;
            writeln!(
                out,
                "ratchet: {} scenarios listed in {} ({} were)",
                updated.len(),
                path.display(),
                ratchet.len()
            )?;
            if !regressions.is_empty() {
                writeln!(
                    out,
                    "ratchet: {} listed scenarios no longer pass and were removed",
                    regressions.len()
                )?;
            }
        } else {
            for regression in &regressions {
                writeln!(out, "ratchet regression: {regression}")?;
            }
            writeln!(
                out,
                "ratchet: {} listed, {} regressed",
                ratchet.len(),
                regressions.len()
            )?;
            ok = regressions.is_empty();
        }
    }
    writeln!(out, "{}", report.rates_line())?;
    writeln!(out, "{}", report.summary_line())?;
    debug_assert_eq!(
        report.passed() + report.failed() + report.skipped(),
        report.results.len()
    );
    Ok(ok)
}

/// `--count`: how many scenarios the directory holds after expansion, without running any.
fn count(args: &Args, out: &mut dyn Write) -> Result<(), CliError> {
    let suite = load_directory(&args.dir).map_err(RunError::from)?;
    let selected: Vec<_> = suite
        .scenarios()
        .filter(|s| args.filter.as_deref().is_none_or(|f| s.id.matches(f)))
        .collect();
    let runnable = selected.iter().filter(|s| !s.ignored).count();
    let uninterpretable: Vec<_> = selected
        .iter()
        .filter(|s| !s.ignored && s.steps.is_err())
        .collect();
    writeln!(
        out,
        "{} feature files, {} unparseable",
        suite.features.len(),
        suite.failures.len()
    )?;
    for (path, error) in &suite.failures {
        writeln!(out, "feature file error: {path}: {error}")?;
    }
    for scenario in &uninterpretable {
        if let Err(reason) = &scenario.steps {
            writeln!(
                out,
                "cannot interpret {}: {} [{}]: {reason}",
                scenario.id.feature,
                scenario.id.name,
                scenario.id.row_text()
            )?;
        }
    }
    writeln!(
        out,
        "{} scenarios with outlines expanded: {runnable} to run, {} skipped (@ignore), {} not interpretable",
        selected.len(),
        selected.len() - runnable,
        uninterpretable.len()
    )?;
    Ok(())
}
