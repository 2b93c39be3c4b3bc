//! The operation table of the scoreboard API, in the grammar of the media table
//! (`crate::media::table`): `operation_table!` makes its endpoint constant, its core builder
//! and, with the `python` feature, the `Scoreboard` methods.

use showctl_macros::operation_table;

use super::record::ScoreRecord;
use crate::operation::{get, Endpoint};

operation_table! {
    python(client = crate::python::scoreboard::PyScoreboard);

    workspace_reads {
        /// GET /data/scores: the score record of the active game (of the class of its
        /// sport).
        scores() -> ScoreRecord {
            SCORES: Endpoint<(), ScoreRecord> = get("/data/scores", ScoreRecord::from_slice);
        }
    }
}
