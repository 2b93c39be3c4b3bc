//! What automation builds by hand: relative opacity, fades and batches of commands. Arguments
//! are checked by the plain functions ([`Fade::new`], [`delta`], [`concurrency`]) before anything
//! is sent; the async functions do the work.

use std::future::Future;
use std::time::Duration;

use futures::StreamExt;

use super::builders::Confirmable;
use super::client::MediaClient;
use super::confirm;
use super::endpoints::{number_in, OPACITY};
use super::expect::Expect;
use super::table::consts::{LAYER_OPACITY, SET_LAYER_OPACITY};
use crate::error::{Error, Result};
use crate::ident::Ident;

/// Most steps per second a fade sends (one every 20 ms).
pub const MAX_FADE_RATE: f64 = 50.0;
/// Steps per second of a fade when no step count is given.
pub const DEFAULT_FADE_RATE: f64 = 20.0;
/// Longest fade, in seconds.
pub const MAX_FADE_SECONDS: f64 = 3600.0;
/// Largest concurrency of a batch.
pub const MAX_CONCURRENCY: usize = 256;

/// An opacity change relative to the current value, -1.0 to 1.0.
pub fn delta(value: f64) -> Result<f64> {
    number_in(value, "delta", -1.0, 1.0)
}

/// Read the layer's opacity, add `delta` (checked by [`delta`]), clamp to 0.0–1.0 and set it.
/// Returns the value set. Two requests: another controller may change the opacity between
/// them.
pub async fn adjust_opacity(
    client: &MediaClient,
    layer: &Ident,
    delta: f64,
    confirm: bool,
) -> Result<f64> {
    let current = client.run(LAYER_OPACITY.at(&[layer])?).await?;
    let value = (current + delta).clamp(OPACITY.0, OPACITY.1);
    let call = SET_LAYER_OPACITY.with(&[layer], "delta", value)?;
    let expect = confirm.then(|| Expect::Opacity {
        layer: layer.clone(),
        value,
    });
    confirm::send(client, call, expect.as_ref()).await?;
    Ok(value)
}

/// [`adjust_opacity`] on a clone of `client`, `delta` checked now (before anything is sent).
pub fn adjusting(
    client: &MediaClient,
    layer: &Ident,
    delta: f64,
    confirm: bool,
) -> Result<impl Future<Output = Result<f64>> + Send + 'static> {
    let (delta, client, layer) = (self::delta(delta)?, client.clone(), layer.clone());
    Ok(async move { adjust_opacity(&client, &layer, delta, confirm).await })
}

/// A checked fade: to an opacity over some seconds in some steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fade {
    pub to: f64,
    pub seconds: f64,
    pub steps: u32,
}

impl Fade {
    /// `steps: None` takes [`DEFAULT_FADE_RATE`] steps a second (at least one).
    pub fn new(to: f64, seconds: f64, steps: Option<i64>) -> Result<Self> {
        let to = number_in(to, "to", OPACITY.0, OPACITY.1)?;
        let seconds = number_in(seconds, "seconds", 0.0, MAX_FADE_SECONDS)?;
        let most = (seconds * MAX_FADE_RATE).floor().max(1.0) as i64;
        let steps = match steps {
            None => ((seconds * DEFAULT_FADE_RATE).round() as i64).clamp(1, most),
            Some(n) if (1..=most).contains(&n) => n,
            Some(n) => {
                return Err(Error::invalid(format!(
                    "steps: must be from 1 to {most} for a fade of {seconds} s (at most \
                     {MAX_FADE_RATE} steps a second), got {n}"
                )))
            }
        };
        Ok(Fade {
            to,
            seconds,
            steps: steps as u32,
        })
    }

    /// The time of step `i` (1-based) after the start: evenly spaced, the last at `seconds`.
    pub fn time_of(&self, i: u32) -> Duration {
        Duration::from_secs_f64(self.seconds * f64::from(i) / f64::from(self.steps))
    }

    /// The value of step `i` from `from`: evenly spaced, the last exactly `to`.
    pub fn value_of(&self, from: f64, i: u32) -> f64 {
        if i >= self.steps {
            return self.to;
        }
        let v = from + (self.to - from) * f64::from(i) / f64::from(self.steps);
        v.clamp(OPACITY.0, OPACITY.1)
    }
}

/// Read the layer's opacity, then send the steps of `fade` at their times. When a step is
/// answered after the time of later ones, those are skipped so the fade still ends on time;
/// the last step is always sent. A failing step ends the fade with its error. Dropping the
/// future (a cancelled task, Ctrl-C) stops the fade where it is.
pub async fn fade(client: &MediaClient, layer: &Ident, fade: Fade) -> Result<()> {
    let from = client.run(LAYER_OPACITY.at(&[layer])?).await?;
    let start = tokio::time::Instant::now();
    let mut skipped = 0;
    let mut i = 1;
    while i <= fade.steps {
        tokio::time::sleep_until(start + fade.time_of(i)).await;
        let elapsed = start.elapsed();
        // The latest step that is due now (never beyond the last).
        while i < fade.steps && fade.time_of(i + 1) <= elapsed {
            i += 1;
            skipped += 1;
        }
        let call = SET_LAYER_OPACITY.with(&[layer], "to", fade.value_of(from, i))?;
        crate::journal::record("fade", false, client.run(call)).await?;
        i += 1;
    }
    if skipped > 0 {
        log::info!(
            "fade on layer {layer}: {} of {} steps skipped (the application answered slower \
             than the step interval of {:.3} s)",
            skipped,
            fade.steps,
            fade.seconds / f64::from(fade.steps)
        );
    }
    Ok(())
}

/// [`fade`] on a clone of `client`, checked now by [`Fade::new`].
pub fn fading(
    client: &MediaClient,
    layer: &Ident,
    to: f64,
    seconds: f64,
    steps: Option<i64>,
) -> Result<impl Future<Output = Result<()>> + Send + 'static> {
    let (plan, client, layer) = (
        Fade::new(to, seconds, steps)?,
        client.clone(),
        layer.clone(),
    );
    Ok(async move { fade(&client, &layer, plan).await })
}

/// A batch's concurrency, 1 to [`MAX_CONCURRENCY`].
pub fn concurrency(n: i64) -> Result<usize> {
    if !(1..=MAX_CONCURRENCY as i64).contains(&n) {
        return Err(Error::invalid(format!(
            "concurrency: must be from 1 to {MAX_CONCURRENCY}, got {n}"
        )));
    }
    Ok(n as usize)
}

/// Send every call, at most `limit` at a time, and return each outcome in the order of
/// `calls`. One failure never stops or hides another. No order is kept between the calls.
pub async fn batch(
    client: &MediaClient,
    commands: Vec<Confirmable>,
    limit: usize,
) -> Vec<Result<()>> {
    let mut out: Vec<Option<Result<()>>> = vec![None; commands.len()];
    let mut running = futures::stream::iter(commands.into_iter().enumerate())
        .map(|(i, command)| async move { (i, command.send(client).await) })
        .buffer_unordered(limit.max(1));
    while let Some((i, result)) = running.next().await {
        out[i] = Some(result);
    }
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::Internal("a batch command was lost".into()))))
        .collect()
}

#[cfg(test)]
mod tests;
