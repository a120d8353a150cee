//! Flow ids for the flows of a class of arrivals (`arrivals`,
//! `tfrc_arrivals`). Every flow alive has its own pair of ids (data, and
//! its reports or ACKs), so anything that tells flows apart by id (a
//! Quick-Start agent holding one flow's request, per-flow drop records)
//! sees each arrival as the flow it is. A pair freed by an ended flow is
//! given to the class's next flow, so the world's flow table grows with
//! the most flows alive at once, not with the flows started; the class's
//! drops are the sum of the records of every pair it ever held.
//!
//! A PDU of an ended flow still in the network when its pair is reused is
//! booked against the pair, which the class's totals count either way.

use crate::apps::FlowRecord;

/// `n` new records at the end of the flow table; the first one's id.
pub(crate) fn new_flow_ids(flows: &mut Vec<FlowRecord>, n: usize) -> u32 {
    let first = flows.len() as u32;
    flows.extend(std::iter::repeat_with(FlowRecord::default).take(n));
    first
}

#[derive(Clone, Debug, Default)]
pub(crate) struct FlowPool {
    /// The first id of every pair the class holds, ascending.
    owned: Vec<u32>,
    /// Pairs no live flow uses.
    free: Vec<u32>,
}

impl FlowPool {
    /// A pair for a new flow: a freed one, or two new records.
    pub(crate) fn take(&mut self, flows: &mut Vec<FlowRecord>) -> u32 {
        if let Some(f) = self.free.pop() {
            return f;
        }
        let f = new_flow_ids(flows, 2);
        self.owned.push(f);
        f
    }

    /// The flow using pair `first` ended.
    pub(crate) fn release(&mut self, first: u32) {
        debug_assert!(self.owns(first) && !self.free.contains(&first));
        self.free.push(first);
    }

    /// Whether `first` is one of the class's pairs.
    pub(crate) fn owns(&self, first: u32) -> bool {
        self.owned.binary_search(&first).is_ok()
    }

    /// The sum of `count` over the records of every pair: (forward,
    /// reverse).
    pub(crate) fn total(
        &self,
        flows: &[FlowRecord],
        count: impl Fn(&FlowRecord) -> u64,
    ) -> (u64, u64) {
        self.owned.iter().fold((0, 0), |(a, b), &f| {
            (
                a + count(&flows[f as usize]),
                b + count(&flows[f as usize + 1]),
            )
        })
    }

    /// The first id of every pair the class holds.
    pub(crate) fn firsts(&self) -> &[u32] {
        &self.owned
    }

    /// Pairs held: the most flows of the class alive at once.
    #[cfg(test)]
    pub(crate) fn pairs(&self) -> usize {
        self.owned.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_flows_have_distinct_pairs_and_ended_ones_are_reused() {
        let mut table = vec![FlowRecord::default(); 3];
        let mut pool = FlowPool::default();
        let a = pool.take(&mut table);
        let b = pool.take(&mut table);
        assert_eq!((a, b), (3, 5));
        assert_eq!(table.len(), 7);
        pool.release(a);
        assert_eq!(pool.take(&mut table), a);
        assert_eq!(
            table.len(),
            7,
            "a freed pair is reused, the table does not grow"
        );
        assert!(pool.owns(a) && pool.owns(b) && !pool.owns(4) && !pool.owns(0));
        assert_eq!(pool.pairs(), 2);
    }

    #[test]
    fn totals_cover_every_pair_held() {
        let mut table = vec![FlowRecord::default(); 1];
        let mut pool = FlowPool::default();
        let a = pool.take(&mut table);
        let b = pool.take(&mut table);
        table[a as usize].dropped = 2;
        table[b as usize + 1].dropped = 5;
        table[0].dropped = 100;
        assert_eq!(pool.total(&table, |f| f.dropped), (2, 5));
    }
}
