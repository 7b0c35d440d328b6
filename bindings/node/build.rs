//! The link arguments of a Node addon.

fn main() {
    napi_build::setup();
}
