//! The layering rule, checked: the core does no I/O and knows nothing of the lanes above it.
//!
//! The pure core (`domain`, `analysis`, `router`, `skills`, `context`) is the crate
//! `coach-core`, whose dependencies hold no I/O crate; the ports (`store`, `queue`, `llm`,
//! `push`, `telemetry`, `retry`, `tls`) are the crate `coach-ports`, which depends on the core
//! alone. Neither can name this crate: Cargo enforces their rules. Inside this crate, until it is
//! split too (issue "Layers the compiler checks"):
//!
//! - `import` (a Strong export into the history) uses the core, the store and the queue;
//! - `app` (the use cases every adapter calls) uses the core, the ports (store, queue, models,
//!   push) and the request's context, never a lane and never the HTTP edge (`api`): a use case
//!   answers its own `AppError`, which the adapters map to a status;
//! - `agent` (the coach: model loop, tools, critic, gate) uses `app` and what it uses, never a
//!   lane and never `api`: the SLOW lane is only its HTTP and SSE adapter;
//! - `config` (the settings `main` reads once) uses the types of what it configures only.
//!
//! The test reads every `crate::<module>` path in each layer's source (comments excluded).

#[cfg(test)]
mod tests {
    use std::path::Path;

    const RULES: [(&str, &[&str]); 4] = [
        (
            "import",
            &["import", "domain", "analysis", "skills", "store", "queue"],
        ),
        (
            "config",
            &["config", "agent", "context", "llm", "queue", "secrets"],
        ),
        (
            "app",
            &[
                "app",
                "domain",
                "analysis",
                "skills",
                "router",
                "store",
                "context",
                "telemetry",
                "retry",
                "queue",
                "llm",
                "push",
                "import",
            ],
        ),
        (
            "agent",
            &[
                "agent",
                "app",
                "domain",
                "analysis",
                "skills",
                "router",
                "store",
                "context",
                "llm",
                "telemetry",
                "retry",
            ],
        ),
    ];

    /// The top-level modules a Rust source names as `crate::<module>`, outside comments.
    fn crate_paths(source: &str) -> Vec<String> {
        let mut out = Vec::new();
        for line in source.lines() {
            let code = line.split("//").next().unwrap_or_default();
            let mut rest = code;
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + "crate::".len()..];
                let module: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !module.is_empty() {
                    out.push(module);
                }
            }
        }
        out
    }

    fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    #[test]
    fn crate_paths_are_read_from_code_not_comments() {
        let src = "use crate::domain::x;\n// crate::lanes is above\nlet y = crate::store::s(); // crate::llm";
        assert_eq!(crate_paths(src), vec!["domain", "store"]);
    }

    #[test]
    fn lower_layers_never_reach_up() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut broken = Vec::new();
        for (layer, allowed) in RULES {
            let mut files = Vec::new();
            sources(&root.join(layer), &mut files);
            let single = root.join(format!("{layer}.rs"));
            if single.is_file() {
                files.push(single);
            }
            assert!(!files.is_empty(), "no sources under {layer}");
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap_or_default();
                for m in crate_paths(&text) {
                    if !allowed.contains(&m.as_str()) {
                        broken.push(format!("{} uses crate::{m}", f.display()));
                    }
                }
            }
        }
        assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
    }
}
