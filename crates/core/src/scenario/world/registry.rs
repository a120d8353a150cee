//! The registry: every component by id, the agents (the addresses PDUs are
//! delivered to) and scheduler slots it was given, and who owns each slot,
//! as smoltcp's `SocketSet` holds its sockets. Flows that arrive and leave
//! during a run reuse freed ids, agents and slots; an agent's generation
//! moves on when it is freed, so a PDU still in flight to it is recognised
//! as stale instead of reaching the agent's next owner.

use super::component::{Component, Vacant};
use crate::engine::{Scheduler, Slot};
use crate::net::AgentAddr;
use std::collections::VecDeque;

/// The most timers and agents one component has (a VC pair: two pacing
/// timers; three agents per VC: destination end, source end, host side).
pub const MAX_TIMERS: usize = 2;
/// The most agents one component has (three per VC of a pair).
pub const MAX_AGENTS: usize = 6;

/// Who owns a scheduler slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Owner {
    Link(u32),
    /// The timer of the port at a link's input.
    Port(u32),
    /// Timer `k` of a component.
    Comp(u32, u8),
    Sampler,
    /// Released with its component; waiting for reuse.
    Free,
}

/// The slots and agents the registry gave a component.
#[derive(Copy, Clone, Debug, Default)]
struct Registration {
    slots: [Slot; MAX_TIMERS],
    n_slots: u8,
    agents: [u32; MAX_AGENTS],
    n_agents: u8,
}

/// An agent: the component that receives what is addressed to it, which of
/// the component's agents it is, and the generation of its index.
#[derive(Copy, Clone, Debug)]
struct AgentEntry {
    comp: u32,
    port: u8,
    gen: u16,
}

/// Why a PDU found no receiver.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Unreached {
    /// No agent ever had this address.
    Unknown,
    /// Its receiver was released while the PDU was in flight.
    Stale,
}

#[derive(Default)]
pub(crate) struct Registry {
    /// Every component, by id; released ones are `Vacant` until reused.
    pub(crate) comps: Vec<Component>,
    regs: Vec<Registration>,
    free_comps: Vec<u32>,
    agents: Vec<AgentEntry>,
    /// Released agent indices, reused oldest first so that a generation
    /// comes round again as late as possible.
    free_agents: VecDeque<u32>,
    owners: Vec<Owner>,
    free_slots: Vec<Slot>,
}

impl Registry {
    /// Who owns `slot`.
    #[inline]
    pub(super) fn owner(&self, slot: Slot) -> Owner {
        self.owners[slot as usize]
    }

    /// A slot of `sched` for `owner`: a freed one, or a new one.
    pub(super) fn alloc_slot(&mut self, owner: Owner, sched: &mut Scheduler) -> Slot {
        match self.free_slots.pop() {
            Some(s) => {
                self.owners[s as usize] = owner;
                s
            }
            None => {
                self.owners.push(owner);
                sched.add_slot()
            }
        }
    }

    fn alloc_agent(&mut self, comp: u32, port: u8) -> AgentAddr {
        match self.free_agents.pop_front() {
            Some(i) => {
                let e = &mut self.agents[i as usize];
                e.comp = comp;
                e.port = port;
                AgentAddr {
                    index: i,
                    gen: e.gen,
                }
            }
            None => {
                self.agents.push(AgentEntry { comp, port, gen: 0 });
                AgentAddr::fixed(self.agents.len() as u32 - 1)
            }
        }
    }

    /// Registers a component: its id, agents and timer slots; returns the
    /// id. Nothing is scheduled yet.
    pub(super) fn add(&mut self, mut comp: Component, sched: &mut Scheduler) -> u32 {
        let id = match self.free_comps.pop() {
            Some(id) => id,
            None => {
                self.comps.push(Component::Vacant(Vacant));
                self.regs.push(Registration::default());
                self.comps.len() as u32 - 1
            }
        };
        let (n_agents, n_timers) = (comp.model().agents(), comp.model().timers());
        assert!(n_agents <= MAX_AGENTS && n_timers <= MAX_TIMERS);
        let mut reg = Registration {
            n_slots: n_timers as u8,
            n_agents: n_agents as u8,
            ..Registration::default()
        };
        let mut addrs = [AgentAddr::default(); MAX_AGENTS];
        for (i, addr) in addrs.iter_mut().enumerate().take(n_agents) {
            *addr = self.alloc_agent(id, i as u8);
            reg.agents[i] = addr.index;
        }
        for k in 0..n_timers {
            reg.slots[k] = self.alloc_slot(Owner::Comp(id, k as u8), sched);
        }
        comp.model_mut().attach(&addrs[..n_agents]);
        self.comps[id as usize] = comp;
        self.regs[id as usize] = reg;
        id
    }

    /// Frees component `id`: its timers are cancelled, its agents'
    /// generations move on, and the component is handed back.
    pub(super) fn release(&mut self, id: u32, sched: &mut Scheduler) -> Component {
        let comp = std::mem::replace(&mut self.comps[id as usize], Component::Vacant(Vacant));
        let reg = std::mem::take(&mut self.regs[id as usize]);
        for &s in &reg.slots[..reg.n_slots as usize] {
            sched.cancel(s);
            self.owners[s as usize] = Owner::Free;
            self.free_slots.push(s);
        }
        for &a in &reg.agents[..reg.n_agents as usize] {
            let e = &mut self.agents[a as usize];
            e.gen = e.gen.wrapping_add(1);
            self.free_agents.push_back(a);
        }
        self.free_comps.push(id);
        comp
    }

    /// The timer slots of component `id`, in its own order.
    #[inline]
    pub(super) fn slots(&self, id: u32) -> &[Slot] {
        let reg = &self.regs[id as usize];
        &reg.slots[..reg.n_slots as usize]
    }

    /// The agents of component `id`, in its own order.
    pub(crate) fn agents_of(&self, id: u32) -> Vec<AgentAddr> {
        let reg = &self.regs[id as usize];
        reg.agents[..reg.n_agents as usize]
            .iter()
            .map(|&i| AgentAddr {
                index: i,
                gen: self.agents[i as usize].gen,
            })
            .collect()
    }

    /// The component and which of its agents `to` reaches.
    #[inline]
    pub(super) fn receiver(&self, to: AgentAddr) -> Result<(u32, usize), Unreached> {
        let Some(a) = self.agents.get(to.index as usize) else {
            return Err(Unreached::Unknown);
        };
        if a.gen != to.gen {
            return Err(Unreached::Stale);
        }
        Ok((a.comp, a.port as usize))
    }

    /// The component agent index `index` belongs to now, if any.
    pub(super) fn comp_of_agent(&self, index: u32) -> Option<u32> {
        self.agents.get(index as usize).map(|a| a.comp)
    }

    /// Components currently registered (not released), and the most there
    /// ever were at once (the arena's size).
    pub(crate) fn live_components(&self) -> (usize, usize) {
        (self.comps.len() - self.free_comps.len(), self.comps.len())
    }

    /// Agents and scheduler slots allocated so far (reused after release).
    pub(crate) fn allocated(&self) -> (usize, usize) {
        (self.agents.len(), self.owners.len())
    }
}
