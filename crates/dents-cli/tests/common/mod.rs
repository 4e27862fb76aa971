//! Helpers shared by some test files of `dents-cli` (each file uses its
//! part).

#![allow(dead_code)]

pub mod fuzz;
