//! Everything people do, written as it is made: people and friendships, then, person by
//! person, their wall, their photo albums and the groups they moderate, each forum with its
//! members, posts, the comment tree under each post and the likes of every message. A
//! creation before the bulk cutoff goes to the bulk files, a later one to the update stream.
//!
//! Memory holds the people, the friendships and one forum's members at a time; a post's
//! comment tree is held while it grows and dropped with it. What the parameter curation
//! needs later is gathered on the way in [`Stats`].
//!
//! Dates keep causality: a forum opens after its moderator joined; a member joins after the
//! forum opened and after they joined; a post is written after its forum opened and its
//! author became a member; a comment after what it replies to and after its author became a
//! member; a like after the message and after its liker became a member (or a friend, for an
//! album). Each of these is at least a second later than what it follows; whatever would
//! fall after the window's end is not made.

use std::io;

use crate::snb::ops::{AddComment, AddForum, AddPerson, AddPost, Millis, Operation, Scheduled};

use super::Spec;
use super::dict::{SHORT_COMMENTS, WORDS};
use super::files::{Bulk, F};
use super::persons::{Knows, Person, ip_in};
use super::rng::Rng;
use super::stream::{BEFORE_STREAM, Stream, dep};
use super::time::{BULK_CUTOFF, DAY, MINUTE, SECOND, WINDOW_END, WINDOW_START};
use super::world::World;

/// Posts on a wall over the whole window, per friend of its owner.
const WALL_POSTS_PER_FRIEND: f64 = 2.2;
/// Groups a person of mean degree moderates.
const GROUPS_PER_PERSON: f64 = 5.0;
/// Members a group draws, on average.
const GROUP_MEMBERS: f64 = 15.0;
/// Posts in a group over the whole window, per member.
const GROUP_POSTS_PER_MEMBER: f64 = 1.5;
/// Photo albums a person of mean degree makes, and photos in an album.
const ALBUMS_PER_PERSON: f64 = 3.5;
const PHOTOS_PER_ALBUM: f64 = 10.0;
/// Comments under a post, on average.
const COMMENTS_PER_POST: f64 = 2.8;
/// The chance that a comment replies to the post rather than to an earlier comment.
const REPLY_TO_POST: f64 = 0.45;
/// Likes per post and per comment, on average.
const LIKES_PER_POST: f64 = 1.05;
const LIKES_PER_COMMENT: f64 = 0.45;
/// The chance a message is written while travelling (located in another country).
const ABROAD: f64 = 0.1;

/// Kept for the parameter curation: counts and samples of the bulk data.
pub struct Stats {
    /// Messages each person wrote, in the bulk load.
    pub messages_by_person: Vec<u32>,
    /// Messages located in each country, in the bulk load.
    pub messages_by_country: Vec<u64>,
    /// Posts carrying each tag, in the bulk load.
    pub posts_by_tag: Vec<u32>,
    /// Samples of bulk post ids, comment ids and ids of messages with a bulk reply.
    pub posts: Reservoir,
    pub comments: Reservoir,
    pub replied: Reservoir,
    /// The earliest and latest `workFrom` year.
    pub work_years: (i64, i64),
}

/// A uniform sample of a sequence of ids of unknown length.
pub struct Reservoir {
    pub items: Vec<i64>,
    seen: u64,
    rng: Rng,
}

impl Reservoir {
    pub fn new(capacity: usize, seed: u64, stream: u64) -> Reservoir {
        Reservoir {
            items: Vec::with_capacity(capacity),
            seen: 0,
            rng: Rng::new(seed, stream),
        }
    }

    fn offer(&mut self, id: i64) {
        self.seen += 1;
        if self.items.len() < self.items.capacity() {
            self.items.push(id);
        } else {
            let at = self.rng.below(self.seen) as usize;
            if at < self.items.len() {
                self.items[at] = id;
            }
        }
    }
}

/// Words to cut messages' texts from.
struct Corpus {
    text: String,
    starts: Vec<usize>,
}

impl Corpus {
    fn new(rng: &mut Rng) -> Corpus {
        let mut text = String::with_capacity(80_000);
        let mut starts = Vec::new();
        while text.len() < 76_000 {
            if !text.is_empty() {
                text.push(' ');
            }
            starts.push(text.len());
            text.push_str(WORDS[rng.index(WORDS.len())]);
        }
        let limit = text.len() - 2_100;
        starts.retain(|&s| s < limit);
        Corpus { text, starts }
    }

    /// About `len` characters of words, whole words only.
    fn cut(&self, rng: &mut Rng, len: usize) -> &str {
        let start = self.starts[rng.index(self.starts.len())];
        let mut end = start + len.min(2_000);
        while end < self.text.len() && self.text.as_bytes()[end] != b' ' {
            end += 1;
        }
        &self.text[start..end]
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ForumKind {
    Wall,
    Album,
    Group,
}

/// A forum being filled: who may write in it, since when.
struct Forum {
    id: i64,
    kind: ForumKind,
    creation: Millis,
    tags: Vec<u32>,
    /// (person, member since): the moderator first, since the forum opened.
    participants: Vec<(u32, Millis)>,
}

/// A message of the tree under a post.
#[derive(Clone, Copy)]
struct Node {
    id: i64,
    date: Millis,
    is_post: bool,
}

pub struct Activity<'a> {
    spec: &'a Spec,
    world: &'a World,
    people: &'a [Person],
    /// Each person's friends and since when.
    friends: Vec<Vec<(u32, Millis)>>,
    /// Each tag's interested people.
    interested: Vec<Vec<u32>>,
    bulk: &'a mut Bulk,
    stream: &'a mut Stream,
    rng: Rng,
    corpus: Corpus,
    next_forum: i64,
    next_message: i64,
    pub stats: Stats,
    mean_degree: f64,
}

impl<'a> Activity<'a> {
    pub fn new(
        spec: &'a Spec,
        world: &'a World,
        people: &'a [Person],
        knows: &[Knows],
        bulk: &'a mut Bulk,
        stream: &'a mut Stream,
    ) -> Activity<'a> {
        let mut friends = vec![Vec::new(); people.len()];
        for k in knows {
            friends[k.a as usize].push((k.b, k.date));
            friends[k.b as usize].push((k.a, k.date));
        }
        let mut interested = vec![Vec::new(); world.tags.len()];
        for (i, p) in people.iter().enumerate() {
            for &t in &p.interests {
                interested[t as usize].push(i as u32);
            }
        }
        let mut rng = Rng::new(spec.seed, 4);
        let corpus = Corpus::new(&mut rng);
        let sample = spec.params_per_kind.max(1) * 4;
        let mean_degree = 2.0 * knows.len() as f64 / people.len().max(1) as f64;
        Activity {
            spec,
            world,
            people,
            friends,
            interested,
            bulk,
            stream,
            rng,
            corpus,
            next_forum: 0,
            next_message: 0,
            stats: Stats {
                messages_by_person: vec![0; people.len()],
                messages_by_country: vec![0; world.countries.len()],
                posts_by_tag: vec![0; world.tags.len()],
                posts: Reservoir::new(sample, spec.seed, 5),
                comments: Reservoir::new(sample, spec.seed, 6),
                replied: Reservoir::new(sample, spec.seed, 7),
                work_years: (i64::MAX, i64::MIN),
            },
            mean_degree,
        }
    }

    /// What the parameter curation needs: the statistics and everyone's friendships.
    pub fn into_parts(self) -> (Stats, Vec<Vec<(u32, Millis)>>) {
        (self.stats, self.friends)
    }

    fn tag_ids(&self, tags: &[u32]) -> Vec<i64> {
        tags.iter()
            .map(|&t| self.world.tags[t as usize].id)
            .collect()
    }

    /// Writes every person with their place, interests, studies and jobs.
    pub fn people(&mut self) -> io::Result<()> {
        for p in self.people {
            for &(_, year) in &p.work {
                let (lo, hi) = self.stats.work_years;
                self.stats.work_years = (lo.min(year), hi.max(year));
            }
            let city_id = self.world.cities[p.city as usize].id;
            let study_at: Vec<(i64, i64)> = p
                .study
                .iter()
                .map(|&(u, year)| (self.world.universities[u as usize].id, year))
                .collect();
            let work_at: Vec<(i64, i64)> = p
                .work
                .iter()
                .map(|&(c, year)| (self.world.companies[c as usize].id, year))
                .collect();
            let gender = if p.female { "female" } else { "male" };
            if p.creation >= BULK_CUTOFF {
                let op = Operation::Iu1(AddPerson {
                    person_id: p.id,
                    first_name: p.first_name.clone(),
                    last_name: p.last_name.clone(),
                    gender: gender.to_string(),
                    birthday: p.birthday,
                    creation_date: p.creation,
                    location_ip: p.ip.clone(),
                    browser_used: p.browser.to_string(),
                    city_id,
                    languages: p.languages.clone(),
                    emails: p.emails.clone(),
                    tag_ids: self.tag_ids(&p.interests),
                    study_at,
                    work_at,
                });
                self.stream.push(&Scheduled {
                    due: p.creation,
                    depends_on: BEFORE_STREAM,
                    op,
                })?;
                continue;
            }
            self.bulk.row(F::Person, |f| {
                f.int(p.id)
                    .text(&p.first_name)
                    .text(&p.last_name)
                    .text(gender)
                    .date(p.birthday)
                    .datetime(p.creation)
                    .text(&p.ip)
                    .text(p.browser)
                    .list(&p.languages)
                    .list(&p.emails);
            })?;
            self.bulk.pair(F::PersonIsLocatedInCity, p.id, city_id)?;
            for &t in &p.interests {
                let tag = self.world.tags[t as usize].id;
                self.bulk.pair(F::PersonHasInterestTag, p.id, tag)?;
            }
            for (u, year) in study_at {
                self.bulk.row(F::PersonStudyAtUniversity, |f| {
                    f.int(p.id).int(u).int(year);
                })?;
            }
            for (c, year) in work_at {
                self.bulk.row(F::PersonWorkAtCompany, |f| {
                    f.int(p.id).int(c).int(year);
                })?;
            }
        }
        Ok(())
    }

    /// Writes the friendships.
    pub fn knows(&mut self, knows: &[Knows]) -> io::Result<()> {
        for k in knows {
            let (a, b) = (&self.people[k.a as usize], &self.people[k.b as usize]);
            if k.date < BULK_CUTOFF {
                self.bulk.row(F::PersonKnowsPerson, |f| {
                    f.int(a.id).int(b.id).datetime(k.date);
                })?;
            } else {
                self.stream.push(&Scheduled {
                    due: k.date,
                    depends_on: dep(a.creation).max(dep(b.creation)),
                    op: Operation::Iu8 {
                        person1_id: a.id,
                        person2_id: b.id,
                        creation_date: k.date,
                    },
                })?;
            }
        }
        Ok(())
    }

    /// Every person's forums, with everything in them.
    pub fn forums(&mut self) -> io::Result<()> {
        for i in 0..self.people.len() {
            self.forums_of(i)?;
        }
        Ok(())
    }

    fn forums_of(&mut self, i: usize) -> io::Result<()> {
        let p = &self.people[i];
        let activity = self.spec.activity;
        let degree = self.friends[i].len() as f64;
        let sociability = (degree + 1.0) / (self.mean_degree + 1.0);
        let remaining =
            |from: Millis| (WINDOW_END - from) as f64 / (WINDOW_END - WINDOW_START) as f64;

        // The wall: opened when the person joins, its members their friends.
        let wall_open = p.creation + SECOND + self.rng.range(0, 10 * MINUTE);
        let tags: Vec<u32> = p.interests.iter().take(3).copied().collect();
        let friends: Vec<(u32, Millis)> = self.friends[i]
            .iter()
            .map(|&(f, since)| (f, since.max(wall_open + SECOND)))
            .collect();
        let mut participants = vec![(i as u32, wall_open)];
        participants.extend(friends.iter().copied());
        let title = format!("Wall of {} {}", p.first_name, p.last_name);
        let mut wall = self.open(ForumKind::Wall, i, wall_open, title, tags, participants)?;
        let posts = self.rng.skewed_count(
            WALL_POSTS_PER_FRIEND * (degree + 1.0) * remaining(wall_open) * activity,
            0.8,
        );
        self.fill(&mut wall, posts, &friends)?;

        // Photo albums: photos taken within two weeks of the album's opening.
        let albums = self
            .rng
            .skewed_count(ALBUMS_PER_PERSON * sociability.sqrt(), 0.8);
        for k in 0..albums {
            let open = self.opening(p.creation);
            let tags = vec![p.interests[self.rng.index(p.interests.len())]];
            let title = format!("Album {k} of {} {}", p.first_name, p.last_name);
            let mut album = self.open(
                ForumKind::Album,
                i,
                open,
                title,
                tags,
                vec![(i as u32, open)],
            )?;
            let photos = self.rng.skewed_count(PHOTOS_PER_ALBUM * activity, 0.8);
            self.fill(&mut album, photos, &friends)?;
        }

        // Groups: about a tag of the moderator's, members from their friends, from people
        // with the interest and from anyone.
        let groups = self
            .rng
            .skewed_count(GROUPS_PER_PERSON * sociability.sqrt(), 1.0);
        for _ in 0..groups {
            let open = self.opening(p.creation);
            let main = p.interests[self.rng.zipf(p.interests.len(), 1.5)];
            let mut tags = vec![main];
            for _ in 0..self.rng.index(3) {
                let t = p.interests[self.rng.index(p.interests.len())];
                if !tags.contains(&t) {
                    tags.push(t);
                }
            }
            let want = self
                .rng
                .skewed_count(GROUP_MEMBERS, 1.0)
                .min(self.people.len() / 3);
            let mut participants = vec![(i as u32, open + SECOND)];
            let mut tries = 0;
            while participants.len() <= want && tries < 4 * want + 10 {
                tries += 1;
                let x = self.rng.unit();
                let candidate = if x < 0.4 && !self.friends[i].is_empty() {
                    self.friends[i][self.rng.index(self.friends[i].len())].0
                } else if x < 0.8 && !self.interested[main as usize].is_empty() {
                    let pool = &self.interested[main as usize];
                    pool[self.rng.index(pool.len())]
                } else {
                    self.rng.index(self.people.len()) as u32
                };
                if participants.iter().any(|&(q, _)| q == candidate) {
                    continue;
                }
                let joined = self.people[candidate as usize].creation.max(open)
                    + MINUTE
                    + self.rng.exponential(30.0 * DAY as f64) as Millis;
                if joined < WINDOW_END {
                    participants.push((candidate, joined));
                }
            }
            let world = self.world;
            let title = format!(
                "Group for {} in {}",
                world.tags[main as usize].name, world.cities[p.city as usize].name
            );
            let members = (participants.len() - 1) as f64;
            let mut group = self.open(ForumKind::Group, i, open, title, tags, participants)?;
            let posts = self.rng.skewed_count(
                GROUP_POSTS_PER_MEMBER * members * remaining(open) * activity,
                1.0,
            );
            let audience = group.participants.clone();
            self.fill(&mut group, posts, &audience)?;
        }
        Ok(())
    }

    /// When an album or a group of someone who joined at `joined` opens: at least a minute
    /// later, early in what is left of the window more often than late.
    fn opening(&mut self, joined: Millis) -> Millis {
        let u = self.rng.unit();
        joined + MINUTE + ((WINDOW_END - joined - 2 * MINUTE) as f64 * u * u) as Millis
    }

    /// Opens a forum: writes it, its moderator, tags and members (all but the first
    /// participant, who moderates it; a wall's and an album's owner is no member of it).
    fn open(
        &mut self,
        kind: ForumKind,
        moderator: usize,
        creation: Millis,
        title: String,
        tags: Vec<u32>,
        participants: Vec<(u32, Millis)>,
    ) -> io::Result<Forum> {
        let id = self.next_forum;
        self.next_forum += 1;
        let m = &self.people[moderator];
        if creation < BULK_CUTOFF {
            self.bulk.row(F::Forum, |f| {
                f.int(id).text(&title).datetime(creation);
            })?;
            self.bulk.pair(F::ForumHasModeratorPerson, id, m.id)?;
            for &t in &tags {
                let tag = self.world.tags[t as usize].id;
                self.bulk.pair(F::ForumHasTagTag, id, tag)?;
            }
        } else {
            self.stream.push(&Scheduled {
                due: creation,
                depends_on: dep(m.creation),
                op: Operation::Iu4(AddForum {
                    forum_id: id,
                    forum_title: title,
                    creation_date: creation,
                    moderator_person_id: m.id,
                    tag_ids: self.tag_ids(&tags),
                }),
            })?;
        }
        let members = if kind == ForumKind::Group {
            &participants[..]
        } else {
            &participants[1..]
        };
        for &(q, joined) in members {
            let q = &self.people[q as usize];
            if joined < BULK_CUTOFF {
                self.bulk.row(F::ForumHasMemberPerson, |f| {
                    f.int(id).int(q.id).datetime(joined);
                })?;
            } else {
                self.stream.push(&Scheduled {
                    due: joined,
                    depends_on: dep(creation).max(dep(q.creation)),
                    op: Operation::Iu5 {
                        forum_id: id,
                        person_id: q.id,
                        join_date: joined,
                    },
                })?;
            }
        }
        Ok(Forum {
            id,
            kind,
            creation,
            tags,
            participants,
        })
    }

    /// Writes `posts` posts into a forum, with their comments and likes; `audience` is who
    /// may like them (with since when).
    fn fill(
        &mut self,
        forum: &mut Forum,
        posts: usize,
        audience: &[(u32, Millis)],
    ) -> io::Result<()> {
        let mut tree: Vec<Node> = Vec::new();
        for _ in 0..posts {
            let (author, since) = match forum.kind {
                ForumKind::Group => forum.participants[self.rng.index(forum.participants.len())],
                _ => forum.participants[0],
            };
            let earliest = since.max(forum.creation) + SECOND;
            let latest = if forum.kind == ForumKind::Album {
                (earliest + 14 * DAY).min(WINDOW_END)
            } else {
                WINDOW_END
            };
            if earliest >= latest {
                continue;
            }
            let date = self.rng.range(earliest, latest);
            let post = self.post(forum, author as usize, date)?;
            self.likes(post, audience, LIKES_PER_POST)?;
            if forum.kind == ForumKind::Album {
                continue;
            }
            tree.clear();
            tree.push(post);
            let comments = self.rng.skewed_count(COMMENTS_PER_POST, 1.2);
            for _ in 0..comments {
                let parent = if tree.len() == 1 || self.rng.chance(REPLY_TO_POST) {
                    tree[0]
                } else {
                    tree[1 + self.rng.index(tree.len() - 1)]
                };
                let (author, since) = self.present(&forum.participants, parent.date);
                let date = parent.date.max(since)
                    + SECOND
                    + self.rng.exponential(1.5 * DAY as f64) as Millis;
                if date >= WINDOW_END {
                    continue;
                }
                let comment = self.comment(forum, parent, author as usize, date)?;
                self.likes(comment, &forum.participants, LIKES_PER_COMMENT)?;
                tree.push(comment);
            }
        }
        Ok(())
    }

    /// Someone of `people` drawn at random, preferring (in a few draws) who was there by
    /// `date`: a reply or a like from someone who joined later waits for them.
    fn present(&mut self, people: &[(u32, Millis)], date: Millis) -> (u32, Millis) {
        let mut pick = people[self.rng.index(people.len())];
        for _ in 0..3 {
            if pick.1 <= date {
                break;
            }
            pick = people[self.rng.index(people.len())];
        }
        pick
    }

    /// Where a message by `author` is written: their country, or another one when abroad.
    fn whereabouts(&mut self, author: usize) -> (usize, String) {
        let p = &self.people[author];
        if self.rng.chance(ABROAD) {
            let c = self.world.draw_country(&mut self.rng);
            (c, ip_in(c, &mut self.rng))
        } else {
            (usize::from(p.country), p.ip.clone())
        }
    }

    fn post(&mut self, forum: &Forum, author: usize, date: Millis) -> io::Result<Node> {
        let id = self.next_message;
        self.next_message += 1;
        let p = &self.people[author];
        let (country, ip) = self.whereabouts(author);
        let country_id = self.world.countries[country].id;
        let mut tags: Vec<u32> = Vec::new();
        match forum.kind {
            ForumKind::Wall => {
                for _ in 0..1 + self.rng.index(2) {
                    let t = p.interests[self.rng.zipf(p.interests.len(), 1.2)];
                    if !tags.contains(&t) {
                        tags.push(t);
                    }
                }
            }
            ForumKind::Group => {
                tags.push(forum.tags[self.rng.index(forum.tags.len())]);
                if self.rng.chance(0.3) {
                    let t = p.interests[self.rng.index(p.interests.len())];
                    if !tags.contains(&t) {
                        tags.push(t);
                    }
                }
            }
            ForumKind::Album => {
                if self.rng.chance(0.5) {
                    tags.push(forum.tags[0]);
                }
            }
        }
        let (image, language, content) = if forum.kind == ForumKind::Album {
            (format!("photo{id}.jpg"), String::new(), String::new())
        } else {
            let language = p.languages[self.rng.index(p.languages.len())].clone();
            let topic = tags
                .first()
                .map_or("life", |&t| self.world.tags[t as usize].name.as_str());
            let len = self.rng.skewed_count(160.0, 0.8).clamp(20, 2_000);
            let text = self.corpus.cut(&mut self.rng, len);
            (String::new(), language, format!("About {topic}. {text}"))
        };
        let length = content.len() as i64;
        if date < BULK_CUTOFF {
            self.stats.messages_by_person[author] += 1;
            self.stats.messages_by_country[country] += 1;
            for &t in &tags {
                self.stats.posts_by_tag[t as usize] += 1;
            }
            self.stats.posts.offer(id);
            self.bulk.row(F::Post, |f| {
                f.int(id)
                    .text(&image)
                    .datetime(date)
                    .text(&ip)
                    .text(p.browser)
                    .text(&language)
                    .text(&content)
                    .int(length);
            })?;
            self.bulk.pair(F::ForumContainerOfPost, forum.id, id)?;
            self.bulk.pair(F::PostHasCreatorPerson, id, p.id)?;
            self.bulk.pair(F::PostIsLocatedInCountry, id, country_id)?;
            for &t in &tags {
                let tag = self.world.tags[t as usize].id;
                self.bulk.pair(F::PostHasTagTag, id, tag)?;
            }
        } else {
            self.stream.push(&Scheduled {
                due: date,
                depends_on: dep(p.creation).max(dep(forum.creation)),
                op: Operation::Iu6(AddPost {
                    post_id: id,
                    image_file: image,
                    creation_date: date,
                    location_ip: ip,
                    browser_used: p.browser.to_string(),
                    language,
                    content,
                    length,
                    author_person_id: p.id,
                    forum_id: forum.id,
                    country_id,
                    tag_ids: self.tag_ids(&tags),
                }),
            })?;
        }
        Ok(Node {
            id,
            date,
            is_post: true,
        })
    }

    fn comment(
        &mut self,
        forum: &Forum,
        parent: Node,
        author: usize,
        date: Millis,
    ) -> io::Result<Node> {
        let id = self.next_message;
        self.next_message += 1;
        let p = &self.people[author];
        let (country, ip) = self.whereabouts(author);
        let country_id = self.world.countries[country].id;
        let mut tags: Vec<u32> = Vec::new();
        if self.rng.chance(0.7) {
            tags.push(forum.tags[self.rng.index(forum.tags.len())]);
        }
        if self.rng.chance(0.3) {
            let t = p.interests[self.rng.index(p.interests.len())];
            if !tags.contains(&t) {
                tags.push(t);
            }
        }
        let content = if self.rng.chance(0.5) {
            SHORT_COMMENTS[self.rng.index(SHORT_COMMENTS.len())].to_string()
        } else {
            let len = self.rng.skewed_count(90.0, 0.7).clamp(10, 1_000);
            self.corpus.cut(&mut self.rng, len).to_string()
        };
        let length = content.len() as i64;
        let (reply_post, reply_comment) = if parent.is_post {
            (parent.id, -1)
        } else {
            (-1, parent.id)
        };
        if date < BULK_CUTOFF {
            self.stats.messages_by_person[author] += 1;
            self.stats.messages_by_country[country] += 1;
            self.stats.comments.offer(id);
            self.stats.replied.offer(parent.id);
            self.bulk.row(F::Comment, |f| {
                f.int(id)
                    .datetime(date)
                    .text(&ip)
                    .text(p.browser)
                    .text(&content)
                    .int(length);
            })?;
            self.bulk.pair(F::CommentHasCreatorPerson, id, p.id)?;
            self.bulk
                .pair(F::CommentIsLocatedInCountry, id, country_id)?;
            if parent.is_post {
                self.bulk.pair(F::CommentReplyOfPost, id, parent.id)?;
            } else {
                self.bulk.pair(F::CommentReplyOfComment, id, parent.id)?;
            }
            for &t in &tags {
                let tag = self.world.tags[t as usize].id;
                self.bulk.pair(F::CommentHasTagTag, id, tag)?;
            }
        } else {
            self.stream.push(&Scheduled {
                due: date,
                depends_on: dep(p.creation).max(dep(parent.date)),
                op: Operation::Iu7(AddComment {
                    comment_id: id,
                    creation_date: date,
                    location_ip: ip,
                    browser_used: p.browser.to_string(),
                    content,
                    length,
                    author_person_id: p.id,
                    country_id,
                    reply_to_post_id: reply_post,
                    reply_to_comment_id: reply_comment,
                    tag_ids: self.tag_ids(&tags),
                }),
            })?;
        }
        Ok(Node {
            id,
            date,
            is_post: false,
        })
    }

    /// Likes of a message by distinct people of `audience`.
    fn likes(&mut self, message: Node, audience: &[(u32, Millis)], mean: f64) -> io::Result<()> {
        if audience.is_empty() {
            return Ok(());
        }
        let count = self.rng.skewed_count(mean, 1.2).min(audience.len());
        let mut likers: Vec<u32> = Vec::with_capacity(count);
        for _ in 0..count {
            let (q, since) = self.present(audience, message.date);
            if likers.contains(&q) {
                continue;
            }
            likers.push(q);
            let date =
                message.date.max(since) + SECOND + self.rng.exponential(DAY as f64) as Millis;
            if date >= WINDOW_END {
                continue;
            }
            let person = &self.people[q as usize];
            if date < BULK_CUTOFF {
                let file = if message.is_post {
                    F::PersonLikesPost
                } else {
                    F::PersonLikesComment
                };
                self.bulk.row(file, |f| {
                    f.int(person.id).int(message.id).datetime(date);
                })?;
            } else {
                let depends_on = dep(person.creation).max(dep(message.date));
                let op = if message.is_post {
                    Operation::Iu2 {
                        person_id: person.id,
                        post_id: message.id,
                        creation_date: date,
                    }
                } else {
                    Operation::Iu3 {
                        person_id: person.id,
                        comment_id: message.id,
                        creation_date: date,
                    }
                };
                self.stream.push(&Scheduled {
                    due: date,
                    depends_on,
                    op,
                })?;
            }
        }
        Ok(())
    }
}
