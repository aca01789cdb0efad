//! `koshogi export --format onnx`: the ONNX graph is made by the Python twin of the network
//! (`python/koshogi_zero`, exported with `torch.onnx.export(dynamo=True)` and checked with
//! onnxruntime), run in the project's Python environment.
//!
//! The package's files are compiled into this crate and written to a temporary directory for
//! each run, so the binary needs no checkout beside it; Python is `$KOSHOGI_PYTHON`, else the
//! venv of `scripts/setup-libtorch.sh` in the cache, which `scripts/setup-python.sh` completes
//! with onnx, onnxscript and onnxruntime.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::error::ExportError;
use crate::interface::{output_meanings, TensorSpec};

/// The ONNX file of an export directory.
pub const ONNX_FILE: &str = "model.onnx";
/// The torch version of `scripts/setup-libtorch.sh` (its venv is `torch-<version>/venv`).
const TORCH_VERSION: &str = "2.13.0";

/// The Python package, as compiled in: (file name, source).
pub const PYTHON_PACKAGE: &[(&str, &str)] = &[
    (
        "__init__.py",
        include_str!("../../../python/koshogi_zero/__init__.py"),
    ),
    (
        "errors.py",
        include_str!("../../../python/koshogi_zero/errors.py"),
    ),
    (
        "model.py",
        include_str!("../../../python/koshogi_zero/model.py"),
    ),
    (
        "onnx_export.py",
        include_str!("../../../python/koshogi_zero/onnx_export.py"),
    ),
    (
        "evaluate.py",
        include_str!("../../../python/koshogi_zero/evaluate.py"),
    ),
    (
        "data.py",
        include_str!("../../../python/koshogi_zero/data.py"),
    ),
];

/// The `onnx` section of an export card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OnnxSpec {
    pub file: String,
    /// The default (ai.onnx) opset of the graph.
    pub opset: u32,
    pub inputs: Vec<TensorSpec>,
    /// Separate named outputs; "N" is the (dynamic) batch dimension.
    pub outputs: Vec<TensorSpec>,
    /// What made the graph (torch, onnx versions).
    pub exporter: String,
    /// onnxruntime against the PyTorch twin at export time (`max_abs_diff` per output).
    pub check: serde_json::Value,
}

/// What `python -m koshogi_zero.onnx_export --json` prints.
#[derive(Deserialize)]
struct PythonSummary {
    file: String,
    opset: u32,
    inputs: Vec<PythonTensor>,
    outputs: Vec<PythonTensor>,
    exporter: String,
    check: serde_json::Value,
}

#[derive(Deserialize)]
struct PythonTensor {
    name: String,
    dtype: String,
    shape: Vec<serde_json::Value>,
}

impl PythonTensor {
    fn with_meaning(self, meaning: &str) -> TensorSpec {
        TensorSpec {
            name: self.name,
            dtype: self.dtype,
            shape: self.shape,
            meaning: meaning.to_string(),
        }
    }
}

/// The project's Python: `$KOSHOGI_PYTHON`, else the set-up scripts' venv in
/// `$KOSHOGI_CACHE` (default `${XDG_CACHE_HOME:-~/.cache}/koshogi-zero`).
pub fn project_python() -> Result<PathBuf, ExportError> {
    if let Some(python) = std::env::var_os("KOSHOGI_PYTHON").filter(|p| !p.is_empty()) {
        let python = PathBuf::from(python);
        // A bare name is looked up on PATH when it runs; a path must exist now, before
        // anything is written.
        if python.components().count() > 1 && !python.is_file() {
            return Err(ExportError::Python(format!(
                "KOSHOGI_PYTHON is {}, which does not exist: run `bash scripts/setup-python.sh` \
                 and unset it, or point it at a python with torch, safetensors, onnx, onnxscript \
                 and onnxruntime",
                python.display()
            )));
        }
        return Ok(python);
    }
    let cache = std::env::var_os("KOSHOGI_CACHE")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .filter(|p| !p.is_empty())
                .map(|p| PathBuf::from(p).join("koshogi-zero"))
        })
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/koshogi-zero")))
        .ok_or_else(|| ExportError::Python("HOME is not set: set KOSHOGI_PYTHON".into()))?;
    let python = cache.join(format!("torch-{TORCH_VERSION}/venv/bin/python"));
    if python.is_file() {
        Ok(python)
    } else {
        Err(ExportError::Python(format!(
            "no project Python environment at {}: run `bash scripts/setup-python.sh` (or set \
             KOSHOGI_PYTHON to a python with torch, safetensors, onnx, onnxscript and onnxruntime)",
            python.display()
        )))
    }
}

/// Writes the compiled-in package into `dir/koshogi_zero/`.
pub fn write_python_package(dir: &Path) -> Result<PathBuf, ExportError> {
    let package = dir.join("koshogi_zero");
    std::fs::create_dir_all(&package).map_err(ExportError::io(&package))?;
    for (name, source) in PYTHON_PACKAGE {
        let path = package.join(name);
        std::fs::write(&path, source).map_err(ExportError::io(&path))?;
    }
    Ok(package)
}

/// Runs the Python exporter on the export directory `export_dir` (its card and weights are
/// already written) and returns the card's `onnx` section; `export_dir/model.onnx` exists
/// afterwards.
pub fn export_onnx(export_dir: &Path, python: &Path) -> Result<OnnxSpec, ExportError> {
    let scratch = tempfile::tempdir().map_err(ExportError::io(&std::env::temp_dir()))?;
    write_python_package(scratch.path())?;
    let out = export_dir.join(ONNX_FILE);
    tracing::info!(python = %python.display(), "exporting ONNX through python/koshogi_zero");
    let output = Command::new(python)
        .args(["-m", "koshogi_zero.onnx_export"])
        .arg(export_dir)
        .arg("--out")
        .arg(&out)
        .arg("--json")
        .env("PYTHONPATH", scratch.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .map_err(|e| {
            ExportError::Python(format!(
                "cannot run {}: {e} (run `bash scripts/setup-python.sh` or set KOSHOGI_PYTHON)",
                python.display()
            ))
        })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        // The package reports user errors as one `...: error: ...` line; anything else is a
        // traceback, whose last line says what went wrong.
        let line = stderr
            .lines()
            .rev()
            .find(|l| l.contains("error:"))
            .or_else(|| stderr.lines().rev().find(|l| !l.trim().is_empty()))
            .unwrap_or("no message")
            .trim();
        let line = line
            .strip_prefix("koshogi_zero.onnx_export: error: ")
            .unwrap_or(line);
        let hint = if line.contains("No module named") {
            " (run `bash scripts/setup-python.sh`, or set KOSHOGI_PYTHON to a python with torch, \
             safetensors, onnx, onnxscript and onnxruntime)"
        } else {
            ""
        };
        return Err(ExportError::Python(format!(
            "{} -m koshogi_zero.onnx_export failed ({}): {line}{hint}",
            python.display(),
            output.status
        )));
    }
    let summary: PythonSummary = serde_json::from_slice(&output.stdout).map_err(|e| {
        ExportError::Python(format!(
            "unexpected output of koshogi_zero.onnx_export ({e}): {}",
            String::from_utf8_lossy(&output.stdout).trim()
        ))
    })?;
    if !out.is_file() {
        return Err(ExportError::Python(format!(
            "koshogi_zero.onnx_export reported success but {} is missing",
            out.display()
        )));
    }
    let names: Vec<&str> = summary.outputs.iter().map(|o| o.name.as_str()).collect();
    if names != crate::OUTPUT_NAMES {
        return Err(ExportError::Python(format!(
            "the ONNX graph's outputs are {names:?}, expected {:?}",
            crate::OUTPUT_NAMES
        )));
    }
    let meanings = output_meanings();
    let outputs = summary
        .outputs
        .into_iter()
        .zip(meanings)
        .map(|(spec, meaning)| spec.with_meaning(meaning))
        .collect();
    let inputs = summary
        .inputs
        .into_iter()
        .map(|spec| spec.with_meaning("input planes (input_features)"))
        .collect();
    Ok(OnnxSpec {
        file: summary.file,
        opset: summary.opset,
        inputs,
        outputs,
        exporter: summary.exporter,
        check: summary.check,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of python/koshogi_zero is compiled in (the package imports its siblings).
    #[test]
    fn the_compiled_in_package_is_the_whole_directory() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/koshogi_zero");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".py"))
            .collect();
        on_disk.sort();
        let mut compiled: Vec<String> = PYTHON_PACKAGE.iter().map(|(n, _)| n.to_string()).collect();
        compiled.sort();
        assert_eq!(compiled, on_disk);
    }
}
