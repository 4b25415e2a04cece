//! Label and field selectors. TODO
