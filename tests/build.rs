//! The system tests link libtorch (through koshogi-nn): their binaries get its rpath too.
fn main() {
    koshogi_build::link_libtorch_rpath();
}
