//! `App`'s side of the screens that are [components](super::component): opening each (its
//! state built from `App`'s models), feeding it what the runtime answers, and the prompts
//! `App` owns that hand their line back to it. The screens' own files import none of this.

mod aliases;
mod changes;
mod containers;
mod contexts;
mod events;
mod helm;
mod history;
mod logs;
mod portforwards;
mod pulse;
mod text;
mod usage;
mod xray;
// The App-touching halves of non-screen modules (they keep their plain data and pure parts,
// outside App's import circle).
mod custom_columns;
mod fleet;
mod fleet_table;
mod k9s_state;
mod nav_history;
mod prompt;
mod replay;
// The resource table screen and its k9s and operating keys: still App's own code (not yet a
// component), kept out of `ui/screens/` so no screen file imports App.
mod k9s;
mod operations;
mod table;
