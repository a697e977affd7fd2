pub mod log_store;
pub mod state_machine;
pub mod types;
