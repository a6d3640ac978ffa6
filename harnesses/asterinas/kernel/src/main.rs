//! `asterinas-trace <spin|mutex|rwmutex> --out DIR [--seed S] [--scenarios N] [--ops M]`
//!
//! Runs N scenarios of the task's upstream primitive with real OS threads and writes one NDJSON
//! file per scenario, `DIR/trace_01.jsonl` ... Scenario i uses seed S + i - 1; the seed fixes each
//! thread's script of operations and pauses, the OS fixes the interleaving.

mod mutex_scenario;
mod record;
mod rng;
mod rwmutex_scenario;
mod spin_scenario;

use std::{fs, io::Write, path::PathBuf, process::ExitCode};

struct Args {
    task: String,
    out: PathBuf,
    seed: u64,
    scenarios: usize,
    ops: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut argv = std::env::args().skip(1);
    let task = argv.next().ok_or("missing task (spin, mutex or rwmutex)")?;
    let mut args = Args { task, out: PathBuf::new(), seed: 1, scenarios: 20, ops: 10 };
    while let Some(flag) = argv.next() {
        let value = argv.next().ok_or(format!("{flag} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|_| format!("{flag}: not a number: {value}"));
        match flag.as_str() {
            "--out" => args.out = PathBuf::from(&value),
            "--seed" => args.seed = number()?,
            "--scenarios" => args.scenarios = number()? as usize,
            "--ops" => args.ops = number()? as usize,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if args.out.as_os_str().is_empty() {
        return Err("--out DIR is required".into());
    }
    Ok(args)
}

fn run_one(task: &str, seed: u64, ops: usize) -> Result<Vec<String>, String> {
    Ok(match task {
        "spin" => spin_scenario::run(seed, ops),
        "mutex" => mutex_scenario::run(seed, ops),
        "rwmutex" => rwmutex_scenario::run(seed, ops),
        other => return Err(format!("unknown task {other:?}")),
    })
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("upstream") {
        // For PROVENANCE.md: the registry crate the sync files were compiled from.
        println!("{} {}", ostd::UPSTREAM_VERSION, ostd::UPSTREAM_COMMIT);
        return ExitCode::SUCCESS;
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("asterinas-trace: {msg}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = fs::create_dir_all(&args.out) {
        eprintln!("asterinas-trace: cannot create {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    let mut total = 0;
    for i in 0..args.scenarios {
        let lines = match run_one(&args.task, args.seed + i as u64, args.ops) {
            Ok(lines) => lines,
            Err(msg) => {
                eprintln!("asterinas-trace: {msg}");
                return ExitCode::from(2);
            }
        };
        total += lines.len();
        let path = args.out.join(format!("trace_{:02}.jsonl", i + 1));
        let mut file = fs::File::create(&path).expect("cannot create trace file");
        for line in lines {
            writeln!(file, "{line}").expect("cannot write trace file");
        }
    }
    println!(
        "{}: {} scenarios, {} events -> {}",
        args.task,
        args.scenarios,
        total,
        args.out.display()
    );
    ExitCode::SUCCESS
}
