//! People and who knows whom.
//!
//! A person lives in a city of a country drawn by population, has a first name drawn with a
//! skew from a pool shared by the countries of their continent (so a name recurs among
//! neighbours), a last name from their country's pool, a few interests drawn with a skew
//! that their country shifts, mostly a university in their country and a few jobs.
//!
//! Friendships: every person gets a target degree from a long-tailed distribution whose mean
//! grows with the network's size as in Datagen's fit of Facebook's degrees. The targets are
//! spent in three passes over the people sorted by one dimension each (university, class
//! year and city; main interest; a random key), 45%, 45% and 10% of each target: a person
//! befriends people a few places further along the order, so friends tend to share a
//! university, a city or an interest. A friendship starts after both people joined.

use std::collections::HashSet;

use super::dict::{self, BROWSERS, EMAIL_DOMAINS};
use super::rng::{Rng, mix};
use super::time::{DAY, HOUR, WINDOW_END, WINDOW_START, days_from_civil};
use super::world::{TAGS, World};
use crate::snb::ops::{Days, Millis};

pub struct Person {
    pub id: i64,
    pub creation: Millis,
    pub city: u32,
    pub country: u16,
    pub first_name: String,
    pub last_name: String,
    pub female: bool,
    pub birthday: Days,
    pub ip: String,
    pub browser: &'static str,
    pub languages: Vec<String>,
    pub emails: Vec<String>,
    /// Tag indexes, the main interest first.
    pub interests: Vec<u32>,
    /// (university index, class year)
    pub study: Option<(u32, i64)>,
    /// (company index, year they started)
    pub work: Vec<(u32, i64)>,
    /// Friendships aimed at.
    pub target_degree: u32,
}

/// A friendship: the two people (indexes) and its creation time.
#[derive(Clone, Copy, Debug)]
pub struct Knows {
    pub a: u32,
    pub b: u32,
    pub date: Millis,
}

/// The mean degree Datagen's fit gives a network of `n` people: n^(0.512 - 0.028·log10 n).
pub fn mean_degree(n: usize) -> f64 {
    let n = n.max(2) as f64;
    n.powf(0.512 - 0.028 * n.log10())
}

/// An IPv4 address in a country's blocks.
pub fn ip_in(country: usize, rng: &mut Rng) -> String {
    let first = 1 + (country * 2 + rng.index(2)) % 223;
    format!(
        "{first}.{}.{}.{}",
        rng.below(256),
        rng.below(256),
        1 + rng.below(254)
    )
}

fn first_name(world: &World, country: usize, female: bool, rng: &mut Rng) -> String {
    let continent = world.countries[country].continent as u64;
    let window = (country as u64 * 37) % 300;
    let rank = rng.zipf(100, 1.1) as u64;
    let index = 200_000 + continent * 1_000 + u64::from(female) * 500 + (window + rank) % 400;
    dict::word(dict::scatter(index, 1_000_000), 2 + (index % 2) as u32)
}

fn last_name(country: usize, rng: &mut Rng) -> String {
    let index = 300_000 + country as u64 * 1_000 + rng.zipf(1_000, 1.05) as u64;
    dict::word(dict::scatter(index, 1_000_000), 3)
}

/// Makes `n` people.
pub fn people(world: &World, n: usize, mean_degree: f64, seed: u64) -> Vec<Person> {
    let mut rng = Rng::new(seed, 2);
    let window = WINDOW_END - WINDOW_START;
    let max_degree = ((n.saturating_sub(1)) as f64)
        .min(mean_degree * 25.0)
        .max(1.0);
    (0..n)
        .map(|i| {
            let country = world.draw_country(&mut rng);
            let c = &world.countries[country];
            let city = c.cities[rng.zipf(c.cities.len(), 1.2)];
            let female = rng.chance(0.5);
            let birth_year = 1980 + rng.range(0, 11);
            let birthday = (days_from_civil(birth_year, 1, 1) + rng.range(0, 365)) as Days;
            let creation = WINDOW_START + rng.range(0, window - DAY);
            let first_name = first_name(world, country, female, &mut rng);
            let last_name = last_name(country, &mut rng);
            let browser = {
                let mut x = rng.below(100) as u32;
                let mut pick = BROWSERS[0].0;
                for (name, weight) in BROWSERS {
                    if x < weight {
                        pick = name;
                        break;
                    }
                    x -= weight;
                }
                pick
            };
            let mut languages = vec![c.language.to_string()];
            if c.language != "en" && rng.chance(0.5) {
                languages.push("en".to_string());
            }
            let emails = (0..1 + rng.index(3))
                .map(|k| {
                    let domain = EMAIL_DOMAINS[rng.index(EMAIL_DOMAINS.len())];
                    if k == 0 {
                        format!("{first_name}{i}@{domain}")
                    } else {
                        format!("{first_name}{i}_{k}@{domain}")
                    }
                })
                .collect();
            // Interests: a skewed rank, shifted by the country so countries differ in what
            // is popular, a third drawn without the shift.
            let count = (1 + rng.skewed_count(22.0, 0.6)).min(80);
            let shift = mix(country as u64) % TAGS as u64;
            let mut interests: Vec<u32> = Vec::with_capacity(count);
            while interests.len() < count {
                let rank = rng.zipf(TAGS, 1.15) as u64;
                let tag = if rng.chance(0.66) {
                    (rank + shift) % TAGS as u64
                } else {
                    rank
                } as u32;
                if !interests.contains(&tag) {
                    interests.push(tag);
                }
            }
            let study = (rng.chance(0.8) && !c.universities.is_empty()).then(|| {
                let u = c.universities[rng.zipf(c.universities.len(), 1.1)];
                (u, birth_year + 18 + rng.range(0, 6))
            });
            let start = study.map_or(birth_year + 20, |(_, year)| year + 1);
            let work = (0..rng.skewed_count(1.2, 0.7).min(4))
                .map(|_| {
                    let pool = if rng.chance(0.9) || world.companies.is_empty() {
                        &c.companies
                    } else {
                        &world.countries[world.draw_country(&mut rng)].companies
                    };
                    (pool[rng.index(pool.len())], start + rng.range(0, 8))
                })
                .fold(Vec::new(), |mut jobs: Vec<(u32, i64)>, job| {
                    if !jobs.iter().any(|j| j.0 == job.0) {
                        jobs.push(job);
                    }
                    jobs
                });
            let target_degree = (rng.skewed_count(mean_degree, 1.0) as f64).min(max_degree) as u32;
            Person {
                id: i as i64,
                creation,
                city,
                country: country as u16,
                first_name,
                last_name,
                female,
                birthday,
                ip: ip_in(country, &mut rng),
                browser,
                languages,
                emails,
                interests,
                study,
                work,
                target_degree,
            }
        })
        .collect()
}

/// The friendships, in creation order of the passes (not of time).
pub fn knows(people: &[Person], seed: u64) -> Vec<Knows> {
    let mut rng = Rng::new(seed, 3);
    let n = people.len();
    let mut edges = Vec::new();
    let mut seen: HashSet<u64> = HashSet::new();
    let shares = [0.45, 0.45, 0.10];
    for (pass, share) in shares.iter().enumerate() {
        let key = |i: usize| -> (u64, u64, u64) {
            let p = &people[i];
            let salt = mix(seed ^ mix(i as u64 ^ (pass as u64) << 40));
            match pass {
                0 => match p.study {
                    Some((u, year)) => (u64::from(u), year as u64, salt),
                    None => (u64::MAX, u64::from(p.city), salt),
                },
                1 => (u64::from(p.interests[0]), salt, 0),
                _ => (salt, 0, 0),
            }
        };
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_cached_key(|&i| key(i as usize));
        let mut quota: Vec<u32> = people
            .iter()
            .map(|p| {
                let q = f64::from(p.target_degree) * share;
                (q.floor() + if rng.unit() < q.fract() { 1.0 } else { 0.0 }) as u32
            })
            .collect();
        for k in 0..n {
            let i = order[k] as usize;
            let mut at = k;
            let mut tries = 0;
            while quota[i] > 0 && tries < 4 * quota[i] as usize + 20 {
                tries += 1;
                at += 1 + rng.exponential(3.0) as usize;
                if at >= n {
                    break;
                }
                let j = order[at] as usize;
                if quota[j] == 0 {
                    continue;
                }
                let (a, b) = (i.min(j) as u64, i.max(j) as u64);
                if !seen.insert(a << 32 | b) {
                    continue;
                }
                quota[i] -= 1;
                quota[j] -= 1;
                let later = people[i].creation.max(people[j].creation);
                let mut date = later + HOUR + rng.exponential(40.0 * DAY as f64) as Millis;
                if date >= WINDOW_END {
                    date = later + rng.range(1, WINDOW_END - later);
                }
                edges.push(Knows {
                    a: i as u32,
                    b: j as u32,
                    date,
                });
            }
        }
    }
    edges
}
