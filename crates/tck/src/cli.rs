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

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::fake::{FEATURE, Fake};

    fn run_to_text(args: &[&str]) -> (Result<bool, CliError>, String) {
        let args = Args::try_parse_from(std::iter::once("quiver-tck").chain(args.iter().copied()))
            .unwrap();
        let mut out = Vec::new();
        let result = run(&args, || Ok::<_, TargetError>(Fake::default()), &mut out);
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn report_ratchet_and_closing_line() {
        let dir = tempfile::tempdir().unwrap();
        let features = dir.path().join("features");
        std::fs::create_dir_all(&features).unwrap();
        std::fs::write(features.join("Fake.feature"), FEATURE).unwrap();
        let report = dir.path().join("report.tsv");
        let ratchet = dir.path().join("ratchet.txt");
        let (dir_arg, report_arg, ratchet_arg) = (
            features.to_str().unwrap(),
            report.to_str().unwrap(),
            ratchet.to_str().unwrap(),
        );
        let timeout = ["--timeout-ms", "300"];

        let (result, text) = run_to_text(&[
            dir_arg,
            "--report",
            report_arg,
            "--ratchet",
            ratchet_arg,
            "--update-ratchet",
            "--filter",
            "[1",
            timeout[0],
            timeout[1],
        ]);
        assert!(result.unwrap());
        // `[1` selects [1] and [10] to [18]; [18] needs a named graph this directory lacks.
        assert_eq!(
            text.lines().last(),
            Some("4 passed, 5 failed, 1 skipped"),
            "{text}"
        );
        assert!(text.contains("ratchet: 4 scenarios listed"), "{text}");
        assert_eq!(
            std::fs::read_to_string(&report).unwrap().lines().count(),
            10
        );

        let (result, text) =
            run_to_text(&[dir_arg, "--ratchet", ratchet_arg, timeout[0], timeout[1]]);
        assert!(result.unwrap(), "{text}");
        assert!(text.contains("ratchet: 4 listed, 0 regressed"), "{text}");

        // A scenario listed as passing that fails is a regression: the run reports failure.
        let mut listed = std::fs::read_to_string(&ratchet).unwrap();
        listed.push_str("Fake.feature\t[4] Unexpected side effects fail\t-\n");
        std::fs::write(&ratchet, listed).unwrap();
        let (result, text) = run_to_text(&[dir_arg, "--ratchet", ratchet_arg, "--filter", "[4]"]);
        assert!(!result.unwrap(), "{text}");
        assert!(
            text.contains(
                "ratchet regression: Fake.feature: [4] Unexpected side effects fail [-]: FAIL"
            ),
            "{text}"
        );
    }

    #[test]
    fn count_needs_no_target() {
        let kit = concat!(env!("CARGO_MANIFEST_DIR"), "/opencypher/features");
        let args = Args::try_parse_from(["quiver-tck", kit, "--count"]).unwrap();
        let mut out = Vec::new();
        let never =
            || -> Result<Fake, TargetError> { Err(TargetError::Unavailable("not needed".into())) };
        assert!(run(&args, never, &mut out).unwrap());
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("144 feature files, 0 unparseable"), "{text}");
        assert!(text.contains("2406 scenarios with outlines expanded: 2405 to run, 1 skipped (@ignore), 0 not interpretable"), "{text}");
    }

    #[test]
    fn a_missing_target_stops_the_run_once() {
        let dir = tempfile::tempdir().unwrap();
        let args = Args::try_parse_from(["quiver-tck", dir.path().to_str().unwrap()]).unwrap();
        let mut out = Vec::new();
        let none =
            || -> Result<Fake, TargetError> { Err(TargetError::Unavailable("no engine".into())) };
        assert!(matches!(
            run(&args, none, &mut out),
            Err(CliError::Target(_))
        ));
    }
}
