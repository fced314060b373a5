//! Shared helpers for the integration tests: locating and reading the oracle
//! fixtures produced by the reference Python tool.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use tnsai_bspl::{Protocol, Specification};

/// The fixture folder: `TNSAI_BSPL_FIXTURES` when set, else the workspace's
/// `../shared/bspl` when it exists, else the snapshot in `tests/fixtures/bspl` (for a
/// checkout that does not sit next to `shared/`).
pub(crate) fn fixture_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TNSAI_BSPL_FIXTURES") {
        return PathBuf::from(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = manifest.join("../../shared/bspl");
    if shared.join("oracle").is_dir() {
        shared
    } else {
        manifest.join("tests/fixtures/bspl")
    }
}

fn sorted_files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read fixture folder {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == extension))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no *.{extension} files in {}",
        dir.display()
    );
    files
}

/// Every `protocols/*.bspl` source.
pub(crate) fn protocol_sources() -> Vec<PathBuf> {
    sorted_files(&fixture_dir().join("protocols"), "bspl")
}

/// An oracle file, parsed.
pub(crate) struct Oracle {
    pub(crate) path: PathBuf,
    pub(crate) json: Value,
}

impl Oracle {
    pub(crate) fn kind(&self) -> &str {
        self.json["kind"].as_str().unwrap_or("")
    }

    pub(crate) fn source_text(&self) -> String {
        let source = self.json["source"].as_str().expect("oracle without source");
        read_source(source)
    }

    pub(crate) fn protocol_name(&self) -> &str {
        self.json["protocol"]
            .as_str()
            .expect("oracle without protocol")
    }

    /// Parses the oracle's source and returns its protocol.
    pub(crate) fn load(&self) -> (Specification, Protocol) {
        let spec = Specification::parse(&self.source_text())
            .unwrap_or_else(|e| panic!("{}: source does not parse: {e}", self.path.display()));
        let protocol = spec
            .protocol(self.protocol_name())
            .unwrap_or_else(|| panic!("{}: protocol missing", self.path.display()))
            .clone();
        (spec, protocol)
    }

    pub(crate) fn label(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Every oracle file.
pub(crate) fn oracles() -> Vec<Oracle> {
    sorted_files(&fixture_dir().join("oracle"), "json")
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let json = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
            Oracle { path, json }
        })
        .collect()
}

/// Oracles of kind `protocol`.
pub(crate) fn protocol_oracles() -> Vec<Oracle> {
    oracles()
        .into_iter()
        .filter(|o| o.kind() == "protocol")
        .collect()
}

pub(crate) fn read_source(name: &str) -> String {
    let path = fixture_dir().join("protocols").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A protocol shipped inside the crate (`tnsai-bspl/protocols`).
pub(crate) fn crate_protocol(file: &str, name: &str) -> Protocol {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocols")
        .join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Specification::parse(&text)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .into_protocol(name)
        .unwrap_or_else(|| panic!("{file} has no protocol {name}"))
}

pub(crate) fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|v| v.as_str().expect("expected a string").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) mod generate;
pub(crate) mod network;
