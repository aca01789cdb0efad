//! Build-script support shared by every crate that links libtorch.
//!
//! torch-sys adds libtorch's `lib/` to the link search path but its rpath does not reach the
//! binaries and test executables of dependent crates, so they would fail to start with
//! "libtorch_cpu.so: cannot open shared object file". Each such crate's `build.rs` calls
//! [`link_libtorch_rpath`].

use std::path::PathBuf;

/// Emits `-Wl,-rpath,<libtorch>/lib` for every binary, test, bench and example of the calling
/// crate. The directory comes from `LIBTORCH` (set by `.cargo/config.toml`), resolved through
/// the `.libtorch` link to its real location so the rpath survives a moved checkout.
pub fn link_libtorch_rpath() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    let Some(root) = std::env::var_os("LIBTORCH") else {
        println!(
            "cargo:warning=LIBTORCH is not set: run scripts/setup-libtorch.sh (binaries may not find libtorch)"
        );
        return;
    };
    let root = PathBuf::from(root);
    let lib = root.canonicalize().unwrap_or(root).join("lib");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
}
