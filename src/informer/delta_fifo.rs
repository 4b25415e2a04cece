//! TODO: delta_fifo
