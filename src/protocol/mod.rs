//! The Gomocup (pbrain) protocol front end: parsing, I/O threads and the session state machine,
//! the jobs of the search thread (moves, playing levels, analysis commands, Swap2) and the
//! realtime/detail output of the analysis GUIs.
pub mod command;
pub mod io;
pub mod job;
pub mod level;
pub mod session;
pub mod soosorv;
pub mod swap2;
pub mod yixin;
