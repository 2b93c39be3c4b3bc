//! The operation table of the scoreboard API.

use super::record::ScoreRecord;
use crate::error::Result;
use crate::operation::{endpoint_consts, get, Call, Endpoint};

/// The operations of the scoreboard API, in the grammar of the media table
/// (`crate::media::table`): its consumers are the same.
macro_rules! score_ops {
    ($callback:ident ! { $($pass:tt)* }) => {
        $callback! {
            { $($pass)* }

            workspace_reads {
                /// GET /data/scores: the score record of the active game (of the class of its
                /// sport).
                scores / scores_async []() -> ScoreRecord {
                    SCORES: Endpoint<(), ScoreRecord> = get("/data/scores", ScoreRecord::from_slice);
                }
            }
            layer_reads {}
            workspace_commands {}
            layer_commands {}
            both_commands {}
        }
    };
}

#[allow(unused_imports)] // used by the binding
pub(crate) use score_ops;

score_ops!(endpoint_consts! {});

/// The core builders of the scoreboard's operations.
pub mod builders {
    use super::*;
    #[allow(unused_imports)]
    use crate::ident::Ident;
    use crate::operation::builders;

    score_ops!(builders! {});
}
