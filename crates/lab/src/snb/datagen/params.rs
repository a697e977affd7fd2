//! Substitution parameters, picked from the bulk data so that the answers of one kind are of
//! similar size, as Datagen's curation aims to (it measures each candidate's intermediate
//! result sizes and keeps the candidates in the densest band; this picks by proxies instead):
//!
//! - People: those in the middle half by bulk degree (for reads over friends), or by bulk
//!   messages written (IC7, IC8, IS2).
//! - IC1's first name is the name of someone within three hops of the person.
//! - IC3's countries are two of the twenty where most bulk messages are located; IC6's tag
//!   one of the two hundred on most bulk posts; IC12's tag class the class (or its parent,
//!   unless that is the root) of such a tag; IC11's country and year those of a job of
//!   someone within two hops.
//! - Dates and windows lie inside the bulk window's later half (IC3 and IC4 windows end
//!   before the cutoff).
//! - IC13 and IC14 pairs are at distance 2 to 5 in the bulk graph; every tenth pair is not
//!   connected, when the bulk graph has such a person.
//! - IS4-IS6 take post and comment ids in turn; IS7 ids of messages that have a reply.

use std::collections::BTreeMap;

use super::activity::Stats;
use super::dict::TAG_CLASSES;
use super::persons::Person;
use super::rng::Rng;
use super::time::{BULK_CUTOFF, DAY, WINDOW_START};
use super::world::World;
use crate::snb::ops::{Class, Kind, Millis, Operation};

/// The friendship graph of the bulk load, as adjacency arrays.
struct Graph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Graph {
    fn neighbours(&self, v: u32) -> &[u32] {
        &self.targets[self.offsets[v as usize]..self.offsets[v as usize + 1]]
    }

    /// Everyone within `max_depth` hops of `source` (not itself), with their distance.
    fn within(&self, source: u32, max_depth: u8, dist: &mut [u8]) -> Vec<(u32, u8)> {
        let mut reached = vec![(source, 0u8)];
        dist[source as usize] = 0;
        let mut at = 0;
        while at < reached.len() {
            let (v, d) = reached[at];
            at += 1;
            if d == max_depth {
                continue;
            }
            for &w in self.neighbours(v) {
                if dist[w as usize] == u8::MAX {
                    dist[w as usize] = d + 1;
                    reached.push((w, d + 1));
                }
            }
        }
        for &(v, _) in &reached {
            dist[v as usize] = u8::MAX;
        }
        reached.remove(0);
        reached
    }
}

/// The people of `sorted` in its middle half (all of them when that is empty).
fn middle(sorted: &[u32]) -> &[u32] {
    let band = &sorted[sorted.len() / 4..sorted.len() * 3 / 4];
    if band.is_empty() { sorted } else { band }
}

/// What the curation draws from.
struct Curator<'a> {
    world: &'a World,
    people: &'a [Person],
    stats: &'a Stats,
    graph: Graph,
    /// Bulk people in the middle half by bulk degree, and by bulk messages written.
    social: Vec<u32>,
    writers: Vec<u32>,
    bulk_people: Vec<u32>,
    /// Bulk people without a bulk friend.
    isolated: Vec<u32>,
    /// The twenty countries most bulk messages are located in, the two hundred tags on most
    /// bulk posts.
    countries: Vec<usize>,
    tags: Vec<usize>,
    dist: Vec<u8>,
    rng: Rng,
}

fn pick(rng: &mut Rng, from: &[u32]) -> Option<u32> {
    (!from.is_empty()).then(|| from[rng.index(from.len())])
}

/// A date in the later half of the bulk window, before `end`.
fn later_half(rng: &mut Rng, end: Millis) -> Millis {
    rng.range(WINDOW_START + (BULK_CUTOFF - WINDOW_START) / 2, end)
}

impl Curator<'_> {
    fn id(&self, i: u32) -> i64 {
        self.people[i as usize].id
    }

    /// The `k`th parameter of `kind`, or `None` when this draw found none.
    fn one(&mut self, kind: Kind, k: usize) -> Option<Operation> {
        match kind {
            Kind::Ic2 | Kind::Ic3 | Kind::Ic4 | Kind::Ic5 | Kind::Ic9 => self.dated(kind),
            Kind::Ic1 | Kind::Ic6 | Kind::Ic10 | Kind::Ic11 | Kind::Ic12 => self.around(kind),
            Kind::Ic13 | Kind::Ic14 => self.pair(kind, k),
            _ => self.short(kind, k),
        }
    }

    /// Reads of a person's friends within a time or a window.
    fn dated(&mut self, kind: Kind) -> Option<Operation> {
        let rng = &mut self.rng;
        let person_id = self.people[pick(rng, &self.social)? as usize].id;
        Some(match kind {
            Kind::Ic2 => Operation::Ic2 {
                person_id,
                max_date: later_half(rng, BULK_CUTOFF),
            },
            Kind::Ic9 => Operation::Ic9 {
                person_id,
                max_date: later_half(rng, BULK_CUTOFF),
            },
            Kind::Ic3 => {
                let n = self.countries.len();
                if n < 2 {
                    return None;
                }
                let x = rng.index(n);
                let y = (x + 1 + rng.index(n - 1)) % n;
                let duration_days = rng.range(30, 61);
                let name = |c: usize| self.world.countries[self.countries[c]].name.to_string();
                Operation::Ic3 {
                    person_id,
                    country_x_name: name(x),
                    country_y_name: name(y),
                    start_date: later_half(rng, BULK_CUTOFF - duration_days * DAY),
                    duration_days,
                }
            }
            Kind::Ic4 => {
                let duration_days = rng.range(20, 46);
                Operation::Ic4 {
                    person_id,
                    start_date: later_half(rng, BULK_CUTOFF - duration_days * DAY),
                    duration_days,
                }
            }
            _ => Operation::Ic5 {
                person_id,
                min_date: later_half(rng, BULK_CUTOFF - 30 * DAY),
            },
        })
    }

    /// Reads about what a person's friends are, like and do.
    fn around(&mut self, kind: Kind) -> Option<Operation> {
        let p = pick(&mut self.rng, &self.social)?;
        let person_id = self.id(p);
        Some(match kind {
            Kind::Ic1 => {
                let near = self.graph.within(p, 3, &mut self.dist);
                let (q, _) = *near.get(self.rng.index(near.len().max(1)))?;
                Operation::Ic1 {
                    person_id,
                    first_name: self.people[q as usize].first_name.clone(),
                }
            }
            Kind::Ic6 => {
                let t = *self.tags.get(self.rng.index(self.tags.len().max(1)))?;
                Operation::Ic6 {
                    person_id,
                    tag_name: self.world.tags[t].name.clone(),
                }
            }
            Kind::Ic10 => Operation::Ic10 {
                person_id,
                month: self.rng.range(1, 13),
            },
            Kind::Ic11 => {
                let workers: Vec<u32> = self
                    .graph
                    .within(p, 2, &mut self.dist)
                    .into_iter()
                    .map(|(q, _)| q)
                    .filter(|&q| !self.people[q as usize].work.is_empty())
                    .collect();
                let q = pick(&mut self.rng, &workers)?;
                let jobs = &self.people[q as usize].work;
                let (company, from) = jobs[self.rng.index(jobs.len())];
                let country = self.world.companies[company as usize].place as usize;
                Operation::Ic11 {
                    person_id,
                    country_name: self.world.countries[country].name.to_string(),
                    work_from_year: from + 1 + self.rng.range(0, 3),
                }
            }
            _ => {
                let t = *self.tags.get(self.rng.index(self.tags.len().max(1)))?;
                let class = usize::from(self.world.tags[t].class);
                let parent = TAG_CLASSES[class].1;
                let class = if parent != 0 && self.rng.chance(0.5) {
                    parent
                } else {
                    class
                };
                Operation::Ic12 {
                    person_id,
                    tag_class_name: TAG_CLASSES[class].0.to_string(),
                }
            }
        })
    }

    /// IC13 and IC14: two people at distance 2 to 5, or (every tenth) not connected.
    fn pair(&mut self, kind: Kind, k: usize) -> Option<Operation> {
        let p = pick(&mut self.rng, &self.social)?;
        let other = if k % 10 == 9 && !self.isolated.is_empty() {
            pick(&mut self.rng, &self.isolated)?
        } else {
            let near: Vec<u32> = self
                .graph
                .within(p, 5, &mut self.dist)
                .into_iter()
                .filter(|&(_, d)| d >= 2)
                .map(|(q, _)| q)
                .collect();
            pick(&mut self.rng, &near)?
        };
        let (person1_id, person2_id) = (self.id(p), self.id(other));
        Some(if kind == Kind::Ic13 {
            Operation::Ic13 {
                person1_id,
                person2_id,
            }
        } else {
            Operation::Ic14 {
                person1_id,
                person2_id,
            }
        })
    }

    /// IC7, IC8 and the short reads: a person or a message.
    fn short(&mut self, kind: Kind, k: usize) -> Option<Operation> {
        let people = self.people;
        let person = |from: &[u32], rng: &mut Rng| pick(rng, from).map(|p| people[p as usize].id);
        let rng = &mut self.rng;
        let stats = self.stats;
        let messages = match kind {
            Kind::Is7 => &stats.replied.items,
            _ if k.is_multiple_of(2) && !stats.posts.items.is_empty() => &stats.posts.items,
            _ if stats.comments.items.is_empty() => &stats.posts.items,
            _ => &stats.comments.items,
        };
        let message =
            |rng: &mut Rng| (!messages.is_empty()).then(|| messages[rng.index(messages.len())]);
        Some(match kind {
            Kind::Ic7 => Operation::Ic7 {
                person_id: person(&self.writers, rng)?,
            },
            Kind::Ic8 => Operation::Ic8 {
                person_id: person(&self.writers, rng)?,
            },
            Kind::Is1 => Operation::Is1 {
                person_id: person(&self.bulk_people, rng)?,
            },
            Kind::Is2 => Operation::Is2 {
                person_id: person(&self.writers, rng)?,
            },
            Kind::Is3 => Operation::Is3 {
                person_id: person(&self.social, rng)?,
            },
            Kind::Is4 => Operation::Is4 {
                message_id: message(rng)?,
            },
            Kind::Is5 => Operation::Is5 {
                message_id: message(rng)?,
            },
            Kind::Is6 => Operation::Is6 {
                message_id: message(rng)?,
            },
            Kind::Is7 => Operation::Is7 {
                message_id: message(rng)?,
            },
            _ => return None,
        })
    }
}

/// The friendship graph of the bulk load.
fn bulk_graph(friends: &[Vec<(u32, Millis)>]) -> Graph {
    let mut offsets = Vec::with_capacity(friends.len() + 1);
    let mut targets = Vec::new();
    offsets.push(0);
    for list in friends {
        targets.extend(
            list.iter()
                .filter(|&&(_, since)| since < BULK_CUTOFF)
                .map(|&(f, _)| f),
        );
        offsets.push(targets.len());
    }
    Graph { offsets, targets }
}

/// The `keep` indexes with the largest non-zero counts, the largest first.
fn top(counts: impl Iterator<Item = u64>, keep: usize) -> Vec<usize> {
    let mut ranked: Vec<(u64, usize)> = counts
        .enumerate()
        .filter(|&(_, c)| c > 0)
        .map(|(i, c)| (c, i))
        .collect();
    ranked.sort_by_key(|&(c, i)| (std::cmp::Reverse(c), i));
    ranked.into_iter().take(keep).map(|(_, i)| i).collect()
}

/// Picks `per_kind` parameters for every read kind (fewer for a kind the data cannot
/// serve, e.g. with no bulk messages).
pub fn curate(
    per_kind: usize,
    seed: u64,
    world: &World,
    people: &[Person],
    friends: &[Vec<(u32, Millis)>],
    stats: &Stats,
) -> BTreeMap<String, Vec<Operation>> {
    let n = people.len();
    let graph = bulk_graph(friends);
    let in_bulk = |i: u32| people[i as usize].creation < BULK_CUTOFF;
    let degree = |i: u32| graph.neighbours(i).len();
    let mut by_degree: Vec<u32> = (0..n as u32)
        .filter(|&i| in_bulk(i) && degree(i) > 0)
        .collect();
    by_degree.sort_by_key(|&i| (degree(i), i));
    let written = |i: u32| stats.messages_by_person[i as usize];
    let mut by_messages: Vec<u32> = (0..n as u32).filter(|&i| written(i) > 0).collect();
    by_messages.sort_by_key(|&i| (written(i), i));
    let bulk_people: Vec<u32> = (0..n as u32).filter(|&i| in_bulk(i)).collect();
    let isolated = bulk_people
        .iter()
        .copied()
        .filter(|&i| degree(i) == 0)
        .collect();
    let mut curator = Curator {
        world,
        people,
        stats,
        social: middle(&by_degree).to_vec(),
        writers: middle(&by_messages).to_vec(),
        bulk_people,
        isolated,
        countries: top(stats.messages_by_country.iter().copied(), 20),
        tags: top(stats.posts_by_tag.iter().map(|&c| u64::from(c)), 200),
        graph,
        dist: vec![u8::MAX; n],
        rng: Rng::new(seed, 8),
    };
    let mut out = BTreeMap::new();
    for kind in Kind::ALL {
        if kind.class() == Class::Update {
            continue;
        }
        let mut ops = Vec::with_capacity(per_kind);
        for _ in 0..per_kind * 4 {
            if ops.len() == per_kind {
                break;
            }
            if let Some(op) = curator.one(kind, ops.len()) {
                ops.push(op);
            }
        }
        out.insert(kind.name().to_string(), ops);
    }
    out
}
