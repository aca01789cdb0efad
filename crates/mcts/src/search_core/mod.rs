//! The search core: one resumable tree search that descends, expands and backs up without knowing
//! the algorithm ([`search`]), over its tree ([`tree`]), with what selection sees of a node's
//! children ([`child_stats`]), the leaves it hands out ([`batch`]), its configuration
//! ([`config`]), its result ([`result`]) and the value triple ([`wdl`]). The policies that choose
//! live in [`crate::policy`], the batching of many searches in [`crate::driver`], the games in
//! [`crate::game`] and its neighbours.

pub mod batch;
pub mod child_stats;
pub mod config;
pub mod result;
pub mod search;
pub mod tree;
pub mod wdl;
