//! The Interactive workload's operations and their substitution parameters.
//!
//! An [`Operation`] is one operation with its parameters, as the generator picks them and the
//! driver schedules them; the queries module turns it into Cypher and Bolt parameters. Times
//! are carried as milliseconds since the Unix epoch (UTC) and bound as `datetime`s; a date of
//! birth as days since the epoch, bound as a `date`.

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch, UTC.
pub type Millis = i64;
/// Days since the Unix epoch.
pub type Days = i32;

/// Every operation of the mix, in the specification's order: complex reads, short reads,
/// updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Kind {
    Ic1,
    Ic2,
    Ic3,
    Ic4,
    Ic5,
    Ic6,
    Ic7,
    Ic8,
    Ic9,
    Ic10,
    Ic11,
    Ic12,
    Ic13,
    Ic14,
    Is1,
    Is2,
    Is3,
    Is4,
    Is5,
    Is6,
    Is7,
    Iu1,
    Iu2,
    Iu3,
    Iu4,
    Iu5,
    Iu6,
    Iu7,
    Iu8,
}

/// What a kind is, and its name in reports (`IC1` … `IU8`).
struct Row {
    kind: Kind,
    name: &'static str,
    class: Class,
}

/// The three classes of the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Class {
    Complex,
    Short,
    Update,
}

const fn row(kind: Kind, name: &'static str, class: Class) -> Row {
    Row { kind, name, class }
}

/// One row per kind, in [`Kind`]'s order (checked below, at compile time).
const TABLE: [Row; 29] = [
    row(Kind::Ic1, "IC1", Class::Complex),
    row(Kind::Ic2, "IC2", Class::Complex),
    row(Kind::Ic3, "IC3", Class::Complex),
    row(Kind::Ic4, "IC4", Class::Complex),
    row(Kind::Ic5, "IC5", Class::Complex),
    row(Kind::Ic6, "IC6", Class::Complex),
    row(Kind::Ic7, "IC7", Class::Complex),
    row(Kind::Ic8, "IC8", Class::Complex),
    row(Kind::Ic9, "IC9", Class::Complex),
    row(Kind::Ic10, "IC10", Class::Complex),
    row(Kind::Ic11, "IC11", Class::Complex),
    row(Kind::Ic12, "IC12", Class::Complex),
    row(Kind::Ic13, "IC13", Class::Complex),
    row(Kind::Ic14, "IC14", Class::Complex),
    row(Kind::Is1, "IS1", Class::Short),
    row(Kind::Is2, "IS2", Class::Short),
    row(Kind::Is3, "IS3", Class::Short),
    row(Kind::Is4, "IS4", Class::Short),
    row(Kind::Is5, "IS5", Class::Short),
    row(Kind::Is6, "IS6", Class::Short),
    row(Kind::Is7, "IS7", Class::Short),
    row(Kind::Iu1, "IU1", Class::Update),
    row(Kind::Iu2, "IU2", Class::Update),
    row(Kind::Iu3, "IU3", Class::Update),
    row(Kind::Iu4, "IU4", Class::Update),
    row(Kind::Iu5, "IU5", Class::Update),
    row(Kind::Iu6, "IU6", Class::Update),
    row(Kind::Iu7, "IU7", Class::Update),
    row(Kind::Iu8, "IU8", Class::Update),
];

const _: () = {
    let mut i = 0;
    while i < TABLE.len() {
        assert!(TABLE[i].kind as usize == i, "TABLE is out of Kind's order");
        i += 1;
    }
};

impl Kind {
    /// Every kind, in order.
    pub const ALL: [Kind; 29] = {
        let mut all = [Kind::Ic1; 29];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].kind;
            i += 1;
        }
        all
    };

    pub fn name(self) -> &'static str {
        TABLE[self as usize].name
    }

    pub fn class(self) -> Class {
        TABLE[self as usize].class
    }

    /// The kind named `IC1` … `IU8` (case-insensitive).
    pub fn parse(name: &str) -> Option<Kind> {
        TABLE
            .iter()
            .find(|row| row.name.eq_ignore_ascii_case(name))
            .map(|row| row.kind)
    }
}

/// IU1: a person joins, with their interests, studies and jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AddPerson {
    pub person_id: i64,
    pub first_name: String,
    pub last_name: String,
    pub gender: String,
    pub birthday: Days,
    pub creation_date: Millis,
    pub location_ip: String,
    pub browser_used: String,
    pub city_id: i64,
    pub languages: Vec<String>,
    pub emails: Vec<String>,
    pub tag_ids: Vec<i64>,
    /// (university id, class year)
    pub study_at: Vec<(i64, i64)>,
    /// (company id, year they started)
    pub work_at: Vec<(i64, i64)>,
}

/// IU4: a forum is opened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AddForum {
    pub forum_id: i64,
    pub forum_title: String,
    pub creation_date: Millis,
    pub moderator_person_id: i64,
    pub tag_ids: Vec<i64>,
}

/// IU6: a post is written in a forum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AddPost {
    pub post_id: i64,
    /// Empty when the post has text instead.
    pub image_file: String,
    pub creation_date: Millis,
    pub location_ip: String,
    pub browser_used: String,
    /// Empty for an image post.
    pub language: String,
    /// Empty for an image post.
    pub content: String,
    pub length: i64,
    pub author_person_id: i64,
    pub forum_id: i64,
    pub country_id: i64,
    pub tag_ids: Vec<i64>,
}

/// IU7: a comment replies to a post or to another comment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AddComment {
    pub comment_id: i64,
    pub creation_date: Millis,
    pub location_ip: String,
    pub browser_used: String,
    pub content: String,
    pub length: i64,
    pub author_person_id: i64,
    pub country_id: i64,
    /// The post replied to, or -1.
    pub reply_to_post_id: i64,
    /// The comment replied to, or -1.
    pub reply_to_comment_id: i64,
    pub tag_ids: Vec<i64>,
}

/// One operation with its substitution parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "UPPERCASE")]
pub enum Operation {
    /// Friends (to three hops) with a given first name.
    Ic1 {
        person_id: i64,
        first_name: String,
    },
    /// Recent messages of friends, before a date.
    Ic2 {
        person_id: i64,
        max_date: Millis,
    },
    /// Friends (to two hops) who posted in two given countries within a window.
    Ic3 {
        person_id: i64,
        country_x_name: String,
        country_y_name: String,
        start_date: Millis,
        duration_days: i64,
    },
    /// Tags of friends' posts new in a window.
    Ic4 {
        person_id: i64,
        start_date: Millis,
        duration_days: i64,
    },
    /// Forums friends (to two hops) joined after a date, by the posts they wrote there.
    Ic5 {
        person_id: i64,
        min_date: Millis,
    },
    /// Tags that appear with a given tag on friends' (to two hops) posts.
    Ic6 {
        person_id: i64,
        tag_name: String,
    },
    /// Recent likers of the person's messages.
    Ic7 {
        person_id: i64,
    },
    /// Recent replies to the person's messages.
    Ic8 {
        person_id: i64,
    },
    /// Recent messages of friends (to two hops), before a date.
    Ic9 {
        person_id: i64,
        max_date: Millis,
    },
    /// Friend recommendation: friends of friends born around a month, by common interests.
    Ic10 {
        person_id: i64,
        month: i64,
    },
    /// Friends (to two hops) who started a job in a country before a year.
    Ic11 {
        person_id: i64,
        country_name: String,
        work_from_year: i64,
    },
    /// Friends' replies to posts with a tag of a tag class (or its subclasses).
    Ic12 {
        person_id: i64,
        tag_class_name: String,
    },
    /// The length of a shortest KNOWS path between two people (-1 when none).
    Ic13 {
        person1_id: i64,
        person2_id: i64,
    },
    /// Every shortest KNOWS path between two people, weighted by their interactions.
    Ic14 {
        person1_id: i64,
        person2_id: i64,
    },
    /// A person's profile.
    Is1 {
        person_id: i64,
    },
    /// A person's ten latest messages, with each one's original post.
    Is2 {
        person_id: i64,
    },
    /// A person's friends.
    Is3 {
        person_id: i64,
    },
    /// A message's content.
    Is4 {
        message_id: i64,
    },
    /// A message's creator.
    Is5 {
        message_id: i64,
    },
    /// The forum a message is in, and its moderator.
    Is6 {
        message_id: i64,
    },
    /// Replies to a message, and whether their authors know its author.
    Is7 {
        message_id: i64,
    },
    Iu1(AddPerson),
    /// A like of a post.
    Iu2 {
        person_id: i64,
        post_id: i64,
        creation_date: Millis,
    },
    /// A like of a comment.
    Iu3 {
        person_id: i64,
        comment_id: i64,
        creation_date: Millis,
    },
    Iu4(AddForum),
    /// A person joins a forum.
    Iu5 {
        forum_id: i64,
        person_id: i64,
        join_date: Millis,
    },
    Iu6(AddPost),
    Iu7(AddComment),
    /// Two people become friends.
    Iu8 {
        person1_id: i64,
        person2_id: i64,
        creation_date: Millis,
    },
}

impl Operation {
    pub fn kind(&self) -> Kind {
        match self {
            Operation::Ic1 { .. } => Kind::Ic1,
            Operation::Ic2 { .. } => Kind::Ic2,
            Operation::Ic3 { .. } => Kind::Ic3,
            Operation::Ic4 { .. } => Kind::Ic4,
            Operation::Ic5 { .. } => Kind::Ic5,
            Operation::Ic6 { .. } => Kind::Ic6,
            Operation::Ic7 { .. } => Kind::Ic7,
            Operation::Ic8 { .. } => Kind::Ic8,
            Operation::Ic9 { .. } => Kind::Ic9,
            Operation::Ic10 { .. } => Kind::Ic10,
            Operation::Ic11 { .. } => Kind::Ic11,
            Operation::Ic12 { .. } => Kind::Ic12,
            Operation::Ic13 { .. } => Kind::Ic13,
            Operation::Ic14 { .. } => Kind::Ic14,
            Operation::Is1 { .. } => Kind::Is1,
            Operation::Is2 { .. } => Kind::Is2,
            Operation::Is3 { .. } => Kind::Is3,
            Operation::Is4 { .. } => Kind::Is4,
            Operation::Is5 { .. } => Kind::Is5,
            Operation::Is6 { .. } => Kind::Is6,
            Operation::Is7 { .. } => Kind::Is7,
            Operation::Iu1(_) => Kind::Iu1,
            Operation::Iu2 { .. } => Kind::Iu2,
            Operation::Iu3 { .. } => Kind::Iu3,
            Operation::Iu4(_) => Kind::Iu4,
            Operation::Iu5 { .. } => Kind::Iu5,
            Operation::Iu6(_) => Kind::Iu6,
            Operation::Iu7(_) => Kind::Iu7,
            Operation::Iu8 { .. } => Kind::Iu8,
        }
    }
}

/// An update as the update stream holds it: due at `due` (simulation time), and not to start
/// before every update due at or before `depends_on` has completed (what it refers to was
/// made by those).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scheduled {
    pub due: Millis,
    pub depends_on: Millis,
    pub op: Operation,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_named_and_classed_as_the_specification_numbers_them() {
        assert_eq!(Kind::ALL.len(), 14 + 7 + 8);
        assert_eq!(Kind::Ic13.name(), "IC13");
        assert_eq!(Kind::parse("is7"), Some(Kind::Is7));
        assert_eq!(Kind::parse("IC15"), None);
        let count = |class| Kind::ALL.iter().filter(|k| k.class() == class).count();
        assert_eq!(
            (
                count(Class::Complex),
                count(Class::Short),
                count(Class::Update)
            ),
            (14, 7, 8)
        );
    }

    #[test]
    fn an_operation_reads_back_as_written() {
        let op = Scheduled {
            due: 1_347_000_000_000,
            depends_on: 1_346_000_000_000,
            op: Operation::Iu8 {
                person1_id: 1,
                person2_id: 2,
                creation_date: 1_347_000_000_000,
            },
        };
        let line = serde_json::to_string(&op).expect("encodes");
        assert!(line.contains("\"op\":\"IU8\""), "{line}");
        let back: Scheduled = serde_json::from_str(&line).expect("decodes");
        assert_eq!(back, op);
        assert_eq!(back.op.kind(), Kind::Iu8);
    }
}
