//! `quiver import`: the offline bulk loader's command line, spelled as neo4j-admin's
//! `database import full` spells it (so existing import scripts need only the command name
//! changed). The work is `quiver_import`'s.

use std::path::PathBuf;
use std::process::ExitCode;

use quiver_import::{Error, FileKind, Group, IdType, Options, Policy, ProgressMode, run};

/// Exit status for a command line that cannot be run (as for a usage error).
const EXIT_USAGE: u8 = 2;

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The data directory to create; `quiver serve --data-dir` opens it. Must be absent or
    /// empty unless --overwrite-destination.
    #[arg(long, value_name = "DIR")]
    data_dir: PathBuf,
    /// Node files: `[LABEL[:LABEL]=]FILE[,FILE]`. The first line of the first file is the
    /// header (a file holding only it is a separate header file). Repeatable.
    #[arg(long, value_name = "[LABEL[:LABEL]=]FILES", required = true)]
    nodes: Vec<String>,
    /// Relationship files: `[TYPE=]FILE[,FILE]`, header as for --nodes. Repeatable.
    #[arg(long, value_name = "[TYPE=]FILES")]
    relationships: Vec<String>,
    /// The field delimiter: one ASCII character, or `TAB`.
    #[arg(long, default_value = ",")]
    delimiter: String,
    /// Splits array values and :LABEL fields: one character, or `TAB`.
    #[arg(long, default_value = ";")]
    array_delimiter: String,
    /// The quote character.
    #[arg(long, default_value = "\"")]
    quote: String,
    /// Treat empty strings as no property. Accepted for neo4j-admin's command lines: Quiver
    /// already stores no property for every empty field.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true")]
    ignore_empty_strings: bool,
    /// How ids compare: `string`, `integer` (parsed, `7` = `07`) or `actual` (integer, no
    /// named ID spaces).
    #[arg(long, default_value = "string", value_name = "string|integer|actual")]
    id_type: String,
    /// Skip (and report) relationships whose start or end node is missing, instead of
    /// failing.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true")]
    skip_bad_relationships: bool,
    /// Skip (and report) nodes whose id their ID space already holds, instead of failing.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true")]
    skip_duplicate_nodes: bool,
    /// Skipped entries allowed before the import fails; -1 for no limit.
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true)]
    bad_tolerance: i64,
    /// Where the list of bad entries is written.
    #[arg(long, default_value = "import.report", value_name = "FILE")]
    report_file: PathBuf,
    /// Replace a non-empty destination (refused while a server holds it).
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true")]
    overwrite_destination: bool,
    /// `auto` (a bar on a terminal, plain lines otherwise), `plain` or `off`.
    #[arg(long, default_value = "auto", value_name = "auto|plain|off")]
    progress: String,
}

/// One ASCII character, `TAB` or `\t`.
fn character(flag: &str, text: &str) -> Result<char, String> {
    if text.eq_ignore_ascii_case("tab") || text == "\\t" {
        return Ok('\t');
    }
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(format!(
            "--{flag} must be one character or TAB, not `{text}`"
        )),
    }
}

fn byte(flag: &str, text: &str) -> Result<u8, String> {
    let c = character(flag, text)?;
    u8::try_from(c)
        .ok()
        .filter(u8::is_ascii)
        .ok_or_else(|| format!("--{flag} must be an ASCII character, not `{text}`"))
}

fn options(args: ImportArgs) -> Result<Options, String> {
    let groups = |specs: &[String], kind| {
        specs
            .iter()
            .map(|s| Group::parse(s, kind))
            .collect::<Result<Vec<_>, _>>()
    };
    let id_type = IdType::parse(&args.id_type).ok_or_else(|| {
        format!(
            "--id-type must be string, integer or actual, not `{}`",
            args.id_type
        )
    })?;
    let progress = match args.progress.as_str() {
        "auto" => ProgressMode::Auto,
        "plain" => ProgressMode::Plain,
        "off" => ProgressMode::Off,
        other => {
            return Err(format!(
                "--progress must be auto, plain or off, not `{other}`"
            ));
        }
    };
    let bad_tolerance = match args.bad_tolerance {
        -1 => None,
        n => Some(u64::try_from(n).map_err(|_| "--bad-tolerance must be -1 or more".to_string())?),
    };
    let delimiter = byte("delimiter", &args.delimiter)?;
    let quote = byte("quote", &args.quote)?;
    if delimiter == quote {
        return Err("--delimiter and --quote must differ".to_string());
    }
    Ok(Options {
        data_dir: args.data_dir,
        nodes: groups(&args.nodes, FileKind::Nodes)?,
        relationships: groups(&args.relationships, FileKind::Relationships)?,
        delimiter,
        array_delimiter: character("array-delimiter", &args.array_delimiter)?,
        quote,
        ignore_empty_strings: args.ignore_empty_strings,
        id_type,
        policy: Policy {
            skip_bad_relationships: args.skip_bad_relationships,
            skip_duplicate_nodes: args.skip_duplicate_nodes,
            bad_tolerance,
        },
        report_file: args.report_file,
        overwrite_destination: args.overwrite_destination,
        progress,
    })
}

pub fn run_import(args: ImportArgs) -> ExitCode {
    let options = match options(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("quiver import: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match run(&options) {
        Ok(s) => {
            let skipped = s.skipped_nodes + s.skipped_relationships;
            println!(
                "imported {} nodes, {} relationships and {} properties into {} \
                 in {:.2} s ({:.0} rows/s), snapshot {:.1} MiB written in {:.2} s",
                s.nodes,
                s.relationships,
                s.properties,
                s.data_dir.display(),
                s.load.as_secs_f64(),
                s.rows_per_second(),
                s.snapshot_bytes as f64 / (1024.0 * 1024.0),
                s.write.as_secs_f64(),
            );
            if skipped > 0 {
                eprintln!(
                    "quiver import: skipped {} duplicate nodes and {} bad relationships; \
                     see {}",
                    s.skipped_nodes,
                    s.skipped_relationships,
                    options.report_file.display()
                );
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("quiver import: {error}");
            eprintln!(
                "quiver import: nothing was written to {}; bad entries are listed in {}",
                options.data_dir.display(),
                options.report_file.display()
            );
            match error {
                Error::Usage(_) => ExitCode::from(EXIT_USAGE),
                _ => ExitCode::FAILURE,
            }
        }
    }
}
