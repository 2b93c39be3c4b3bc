//! The built-in simulator: a stateful stand-in for both applications on a loopback port.
