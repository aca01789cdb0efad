//! The distributed roles against a `file://` store (always runs): see store_support.

mod store_support;

#[test]
fn roles_meet_through_a_file_store_and_survive_sigkill() {
    let root = tempfile::tempdir().unwrap();
    let url = format!("file://{}", root.path().join("store/run").display());
    let roles = store_support::Roles::new(url, Vec::new(), root);
    store_support::two_workers_a_trainer_and_two_crashes(&roles);
}
