//! The media playback application: models, the endpoint table and the client.
