//! The Gomocup (pbrain) protocol front end: parsing, I/O threads and the session state machine.
pub mod command;
pub mod io;
pub mod session;
