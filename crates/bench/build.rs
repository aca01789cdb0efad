fn main() {
    koshogi_build::link_libtorch_rpath();
}
