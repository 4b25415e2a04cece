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
