fn main() {
    // The targets that reach koshogi-nn link libtorch: find it at run time without
    // LD_LIBRARY_PATH, as every binary of the main workspace does.
    koshogi_build::link_libtorch_rpath();
}
