//! Generates an SNB data set: `cargo run --release -p quiver-lab --example snb_datagen --
//! <scale factor | persons> <output dir> [seed] [--import <data dir>]`.

use std::path::PathBuf;
use std::time::Instant;

use quiver_lab::snb::datagen::{self, Spec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: snb_datagen <0.1|1|3|10|persons> <dir> [seed] [--import <data dir>]";
    let (Some(scale), Some(dir)) = (args.first(), args.get(1)) else {
        return Err(usage.into());
    };
    let mut spec = match scale.parse::<usize>() {
        Ok(persons) if !scale.contains('.') && persons > 10 => {
            Spec::new(persons, Spec::DEFAULT_SEED)
        }
        _ => Spec::scale_factor(scale)?,
    };
    if let Some(seed) = args.get(2).filter(|a| !a.starts_with("--")) {
        spec.seed = seed.parse()?;
    }
    let dir = PathBuf::from(dir);
    let started = Instant::now();
    let manifest = datagen::generate(&spec, &dir)?;
    println!(
        "generated {} nodes, {} relationships, {} updates in {:.1?}",
        manifest.nodes(),
        manifest.relationships(),
        manifest.updates,
        started.elapsed()
    );
    for file in &manifest.files {
        println!("{:>10}  {}", file.rows, file.path);
    }
    if let Some(at) = args.iter().position(|a| a == "--import") {
        let data_dir = PathBuf::from(args.get(at + 1).ok_or(usage)?);
        let started = Instant::now();
        let summary = datagen::import(&dir, &data_dir)?;
        println!(
            "imported {} nodes, {} relationships in {:.1?}",
            summary.nodes,
            summary.relationships,
            started.elapsed()
        );
    }
    Ok(())
}
