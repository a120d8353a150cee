//! Every entry's own checks, before anything is built: each section's
//! entries ask their configs (`Check`) and the refusal is placed under the
//! entry (`tcp.t.abr.nrm`). The builder runs this first; the Python layer
//! runs it at validation (`satcc._core.check_description`), so a rule the
//! core enforces is written once, here, and still refused by its key
//! before a run starts.

use super::build::at;
use super::dvb_rcs::DvbRcsDesc;
use super::ports::PortKind;
use super::shaper::RateControlDesc;
use crate::engine::{Check, ConfigError};
use crate::scenario::Description;

impl Check for Description {
    fn check(&self) -> Result<(), ConfigError> {
        for l in &self.links {
            let place = at("links", &l.name);
            l.check().map_err(|e| e.within(&place))?;
            PortKind::check(l).map_err(|e| e.within(&place))?;
        }
        for s in &self.sources {
            s.check().map_err(|e| e.within(&at("sources", &s.name)))?;
        }
        for t in &self.tcp {
            let place = at("tcp", &t.name);
            t.check().map_err(|e| e.within(&place))?;
            if let Some(a) = &t.abr {
                a.config
                    .check()
                    .map_err(|e| e.within(&format!("{place}.abr")))?;
            }
            rate_control(t.rate_control.as_ref(), &place)?;
        }
        for u in &self.udp_rr {
            let place = at("udp_rr", &u.name);
            u.config.check().map_err(|e| e.within(&place))?;
        }
        for a in &self.arrivals {
            a.check().map_err(|e| e.within(&at("arrivals", &a.name)))?;
        }
        for e in &self.emulate {
            rate_control(e.rate_control.as_ref(), &at("emulate", &e.name))?;
        }
        for d in &self.dvb_rcs {
            channel(d)?;
        }
        for t in &self.tfrc {
            t.check().map_err(|e| e.within(&at("tfrc", &t.name)))?;
        }
        for a in &self.tfrc_arrivals {
            a.check()
                .map_err(|e| e.within(&at("tfrc_arrivals", &a.name)))?;
        }
        for c in &self.cell_sources {
            c.check()
                .map_err(|e| e.within(&at("cell_sources", &c.name)))?;
        }
        for t in &self.traces {
            t.check().map_err(|e| e.within(&at("traces", &t.name)))?;
        }
        Ok(())
    }
}

fn rate_control(rc: Option<&RateControlDesc>, place: &str) -> Result<(), ConfigError> {
    match rc {
        Some(rc) => rc
            .check()
            .map_err(|e| e.within(&format!("{place}.rate_control"))),
        None => Ok(()),
    }
}

/// A DVB-RCS channel: its frame, its DAMA (which needs the terminal count
/// and the frame's slots), and each terminal's requests and QS agent.
fn channel(d: &DvbRcsDesc) -> Result<(), ConfigError> {
    let place = at("dvb_rcs", &d.name);
    d.frame.check().map_err(|e| e.within(&place))?;
    let slots = d.frame.slots_per_multiframe();
    d.dama
        .check(d.terminals.len(), slots)
        .map_err(|e| e.within(&format!("{place}.dama")))?;
    for t in &d.terminals {
        let terminal = format!("{place}.terminals.{}", t.name);
        t.request.check().map_err(|e| e.within(&terminal))?;
        if let Some(qs) = &t.quick_start {
            qs.check(&d.frame)
                .map_err(|e| e.within(&format!("{terminal}.quick_start")))?;
        }
    }
    Ok(())
}
