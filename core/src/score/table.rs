//! The operation table of the scoreboard API, in the grammar of the media table
//! (`crate::media::table`): `operation_table!` makes its endpoint constant and its core
//! builder; the binding is handed the same table through `score_operations!` (below) and makes
//! the `Scoreboard` methods from it.

use super::record::ScoreRecord;
use crate::operation::{get, Endpoint};

/// The table, handed to a generator: `score_operations!(showctl_macros::operation_table)` below
/// makes the core's part; the binding hands it to its own generator
/// (`showctl_macros::binding_methods`) with a head naming its classes
/// (`score_operations!(generator { head })`).
#[macro_export]
macro_rules! score_operations {
    ($($generator:ident)::+ $({ $($head:tt)* })?) => {
        $($generator)::+! {
            $($($head)*)?

            workspace_reads {
                /// GET /data/scores: the score record of the active game (of the class of its
                /// sport).
                scores() -> ScoreRecord {
                    SCORES: Endpoint<(), ScoreRecord> = get("/data/scores", ScoreRecord::from_slice);
                }
            }
        }
    };
}

score_operations!(showctl_macros::operation_table);
