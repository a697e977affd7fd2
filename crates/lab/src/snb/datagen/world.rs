//! The static part of the graph, the same at every scale as in Datagen: 6 continents, 111
//! countries, 1,343 cities, about 8,000 organisations (universities in cities, companies in
//! countries), 71 tag classes in a hierarchy and 16,080 tags.

use std::io;

use super::dict::{self, COMPANY_SUFFIXES, CONTINENTS, COUNTRIES, TAG_CLASSES};
use super::files::{Bulk, F};
use super::rng::Rng;

pub const CITIES: usize = 1_343;
pub const TAGS: usize = 16_080;

pub struct Country {
    pub id: i64,
    pub name: &'static str,
    pub continent: usize,
    pub language: &'static str,
    pub weight: u32,
    /// Indexes into [`World::cities`].
    pub cities: Vec<u32>,
    /// Indexes into [`World::companies`].
    pub companies: Vec<u32>,
    /// Indexes into [`World::universities`].
    pub universities: Vec<u32>,
}

pub struct City {
    pub id: i64,
    pub name: String,
    pub country: u16,
}

pub struct Organisation {
    pub id: i64,
    pub name: String,
    /// A city for a university, a country for a company.
    pub place: u32,
}

pub struct Tag {
    pub id: i64,
    pub name: String,
    pub class: u16,
}

pub struct World {
    pub countries: Vec<Country>,
    pub continent_ids: Vec<i64>,
    pub cities: Vec<City>,
    pub universities: Vec<Organisation>,
    pub companies: Vec<Organisation>,
    pub tags: Vec<Tag>,
    pub tag_class_ids: Vec<i64>,
    /// Running sums of the countries' weights, to draw a country by population.
    country_weights: Vec<u32>,
}

fn url(kind: &str, name: &str) -> String {
    format!("http://dbpedia.org/{kind}/{name}")
}

/// Cities per country: two each, the rest to whichever country has the fewest for its
/// weight.
fn cities_per_country() -> Vec<usize> {
    let mut per_country = vec![2usize; COUNTRIES.len()];
    for _ in 0..CITIES - 2 * COUNTRIES.len() {
        let mut best = 0;
        for c in 1..COUNTRIES.len() {
            let share = |i: usize| f64::from(COUNTRIES[i].3) / per_country[i] as f64;
            if share(c) > share(best) {
                best = c;
            }
        }
        per_country[best] += 1;
    }
    per_country
}

/// The tags: unique names, classes drawn with a skew (some classes hold many tags, others
/// few; the root holds none).
fn tags(rng: &mut Rng) -> Vec<Tag> {
    (0..TAGS)
        .map(|i| {
            let j = dict::scatter(i as u64, 100_000_000);
            Tag {
                id: i as i64,
                name: format!(
                    "{}_{}",
                    dict::word(j / 10_000, 2),
                    dict::word(j % 10_000, 2)
                ),
                class: (1 + rng.zipf(TAG_CLASSES.len() - 1, 1.2)) as u16,
            }
        })
        .collect()
}

impl World {
    pub fn build(seed: u64) -> World {
        let mut rng = Rng::new(seed, 1);
        let per_country = cities_per_country();
        let mut countries = Vec::with_capacity(COUNTRIES.len());
        let mut cities = Vec::with_capacity(CITIES);
        let mut universities = Vec::new();
        let mut companies = Vec::new();
        for (c, &(name, continent, language, weight)) in COUNTRIES.iter().enumerate() {
            let mut country = Country {
                id: (CITIES + c) as i64,
                name,
                continent,
                language,
                weight,
                cities: Vec::new(),
                companies: Vec::new(),
                universities: Vec::new(),
            };
            for _ in 0..per_country[c] {
                let index = cities.len();
                country.cities.push(index as u32);
                let city_name = dict::word(dict::scatter(index as u64, 1_000_000), 3);
                let universities_here = 2 + rng.index(6);
                for k in 0..universities_here {
                    country.universities.push(universities.len() as u32);
                    let name = if k == 0 {
                        format!("University_of_{city_name}")
                    } else {
                        format!("University_of_{city_name}_{}", k + 1)
                    };
                    universities.push(Organisation {
                        id: 0,
                        name,
                        place: index as u32,
                    });
                }
                cities.push(City {
                    id: index as i64,
                    name: city_name,
                    country: c as u16,
                });
            }
            let companies_here = 8 + (f64::from(weight) * 1.2) as usize;
            for _ in 0..companies_here {
                let n = companies.len() as u64;
                country.companies.push(n as u32);
                let suffix = COMPANY_SUFFIXES[rng.index(COMPANY_SUFFIXES.len())];
                companies.push(Organisation {
                    id: 0,
                    name: format!(
                        "{}_{suffix}",
                        dict::word(dict::scatter(n + 7_777, 1_000_000), 3)
                    ),
                    place: c as u32,
                });
            }
            countries.push(country);
        }
        for (i, u) in universities.iter_mut().enumerate() {
            u.id = i as i64;
        }
        let offset = universities.len();
        for (i, company) in companies.iter_mut().enumerate() {
            company.id = (offset + i) as i64;
        }
        let continent_ids = (0..CONTINENTS.len())
            .map(|k| (CITIES + COUNTRIES.len() + k) as i64)
            .collect();
        let tags = tags(&mut rng);
        let mut sum = 0;
        let country_weights = COUNTRIES
            .iter()
            .map(|c| {
                sum += c.3;
                sum
            })
            .collect();
        World {
            countries,
            continent_ids,
            cities,
            universities,
            companies,
            tags,
            tag_class_ids: (0..TAG_CLASSES.len() as i64).collect(),
            country_weights,
        }
    }

    /// A country drawn by population weight.
    pub fn draw_country(&self, rng: &mut Rng) -> usize {
        let total = *self.country_weights.last().unwrap_or(&1);
        let x = rng.below(u64::from(total)) as u32;
        self.country_weights.partition_point(|&w| w <= x)
    }

    /// Writes the static nodes and relationships.
    pub fn write(&self, bulk: &mut Bulk) -> io::Result<()> {
        for (k, name) in CONTINENTS.iter().enumerate() {
            let id = self.continent_ids[k];
            bulk.row(F::Continent, |f| {
                f.int(id).text(name).text(&url("resource", name));
            })?;
        }
        for c in &self.countries {
            bulk.row(F::Country, |f| {
                f.int(c.id).text(c.name).text(&url("resource", c.name));
            })?;
            bulk.pair(
                F::CountryIsPartOfContinent,
                c.id,
                self.continent_ids[c.continent],
            )?;
        }
        for city in &self.cities {
            bulk.row(F::City, |f| {
                f.int(city.id)
                    .text(&city.name)
                    .text(&url("resource", &city.name));
            })?;
            bulk.pair(
                F::CityIsPartOfCountry,
                city.id,
                self.countries[usize::from(city.country)].id,
            )?;
        }
        for u in &self.universities {
            bulk.row(F::University, |f| {
                f.int(u.id).text(&u.name).text(&url("resource", &u.name));
            })?;
            bulk.pair(
                F::UniversityIsLocatedInCity,
                u.id,
                self.cities[u.place as usize].id,
            )?;
        }
        for company in &self.companies {
            bulk.row(F::Company, |f| {
                f.int(company.id)
                    .text(&company.name)
                    .text(&url("resource", &company.name));
            })?;
            bulk.pair(
                F::CompanyIsLocatedInCountry,
                company.id,
                self.countries[company.place as usize].id,
            )?;
        }
        for (i, (name, parent)) in TAG_CLASSES.iter().enumerate() {
            bulk.row(F::TagClass, |f| {
                f.int(i as i64).text(name).text(&url("ontology", name));
            })?;
            if i != 0 {
                bulk.pair(F::TagClassIsSubclassOfTagClass, i as i64, *parent as i64)?;
            }
        }
        for tag in &self.tags {
            bulk.row(F::Tag, |f| {
                f.int(tag.id)
                    .text(&tag.name)
                    .text(&url("resource", &tag.name));
            })?;
            bulk.pair(F::TagHasTypeTagClass, tag.id, i64::from(tag.class))?;
        }
        Ok(())
    }
}
