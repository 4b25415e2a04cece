//! Object to table row functions. TODO
