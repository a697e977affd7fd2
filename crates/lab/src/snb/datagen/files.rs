//! The bulk files: one per node label and one per (relationship type, start label, end
//! label), in the CSV format `quiver import` (and `neo4j-admin database import`) reads, each
//! with its header line. Nodes carry their `id` first; relationships their start id, end id,
//! then properties, so the same files also load by position. Fields are written plain,
//! quoted only when they hold a comma, a quote or a line break; arrays are `;`-separated.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::snb::ops::{Days, Millis};

use super::time::{push_date, push_datetime};

/// What a bulk file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// Nodes with these labels (the first is the file's own).
    Nodes(&'static [&'static str]),
    /// Relationships of a type between nodes of two labels.
    Relationships {
        ty: &'static str,
        start: &'static str,
        end: &'static str,
    },
}

/// One bulk file: its name in the `bulk/` directory, what it holds and its header.
#[derive(Clone, Copy, Debug)]
pub struct BulkFile {
    pub name: &'static str,
    pub holds: Holds,
    pub header: &'static str,
}

/// Every bulk file, indexed by [`F`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F {
    Person,
    City,
    Country,
    Continent,
    University,
    Company,
    TagClass,
    Tag,
    Forum,
    Post,
    Comment,
    PersonKnowsPerson,
    PersonIsLocatedInCity,
    PersonHasInterestTag,
    PersonStudyAtUniversity,
    PersonWorkAtCompany,
    PersonLikesPost,
    PersonLikesComment,
    ForumHasMemberPerson,
    ForumHasModeratorPerson,
    ForumHasTagTag,
    ForumContainerOfPost,
    PostHasTagTag,
    CommentHasTagTag,
    PostHasCreatorPerson,
    CommentHasCreatorPerson,
    PostIsLocatedInCountry,
    CommentIsLocatedInCountry,
    CommentReplyOfPost,
    CommentReplyOfComment,
    CityIsPartOfCountry,
    CountryIsPartOfContinent,
    UniversityIsLocatedInCity,
    CompanyIsLocatedInCountry,
    TagHasTypeTagClass,
    TagClassIsSubclassOfTagClass,
}

const fn nodes(
    name: &'static str,
    labels: &'static [&'static str],
    header: &'static str,
) -> BulkFile {
    BulkFile {
        name,
        holds: Holds::Nodes(labels),
        header,
    }
}

const fn rels(
    name: &'static str,
    ty: &'static str,
    start: &'static str,
    end: &'static str,
    header: &'static str,
) -> BulkFile {
    BulkFile {
        name,
        holds: Holds::Relationships { ty, start, end },
        header,
    }
}

const PLACE: &str = "id:ID(Place),name,url";
const ORGANISATION: &str = "id:ID(Organisation),name,url";
const LIKES: &str = ":START_ID(Person),:END_ID(Message),creationDate:datetime";

/// The files, in [`F`]'s order (checked at compile time below).
pub const FILES: [BulkFile; 36] = [
    nodes(
        "person.csv",
        &["Person"],
        "id:ID(Person),firstName,lastName,gender,birthday:date,creationDate:datetime,\
         locationIP,browserUsed,languages:string[],emails:string[]",
    ),
    nodes("city.csv", &["City", "Place"], PLACE),
    nodes("country.csv", &["Country", "Place"], PLACE),
    nodes("continent.csv", &["Continent", "Place"], PLACE),
    nodes(
        "university.csv",
        &["University", "Organisation"],
        ORGANISATION,
    ),
    nodes("company.csv", &["Company", "Organisation"], ORGANISATION),
    nodes("tagclass.csv", &["TagClass"], "id:ID(TagClass),name,url"),
    nodes("tag.csv", &["Tag"], "id:ID(Tag),name,url"),
    nodes(
        "forum.csv",
        &["Forum"],
        "id:ID(Forum),title,creationDate:datetime",
    ),
    nodes(
        "post.csv",
        &["Post", "Message"],
        "id:ID(Message),imageFile,creationDate:datetime,locationIP,browserUsed,language,\
         content,length:int",
    ),
    nodes(
        "comment.csv",
        &["Comment", "Message"],
        "id:ID(Message),creationDate:datetime,locationIP,browserUsed,content,length:int",
    ),
    rels(
        "person_knows_person.csv",
        "KNOWS",
        "Person",
        "Person",
        ":START_ID(Person),:END_ID(Person),creationDate:datetime",
    ),
    rels(
        "person_isLocatedIn_city.csv",
        "IS_LOCATED_IN",
        "Person",
        "City",
        ":START_ID(Person),:END_ID(Place)",
    ),
    rels(
        "person_hasInterest_tag.csv",
        "HAS_INTEREST",
        "Person",
        "Tag",
        ":START_ID(Person),:END_ID(Tag)",
    ),
    rels(
        "person_studyAt_university.csv",
        "STUDY_AT",
        "Person",
        "University",
        ":START_ID(Person),:END_ID(Organisation),classYear:int",
    ),
    rels(
        "person_workAt_company.csv",
        "WORK_AT",
        "Person",
        "Company",
        ":START_ID(Person),:END_ID(Organisation),workFrom:int",
    ),
    rels("person_likes_post.csv", "LIKES", "Person", "Post", LIKES),
    rels(
        "person_likes_comment.csv",
        "LIKES",
        "Person",
        "Comment",
        LIKES,
    ),
    rels(
        "forum_hasMember_person.csv",
        "HAS_MEMBER",
        "Forum",
        "Person",
        ":START_ID(Forum),:END_ID(Person),joinDate:datetime",
    ),
    rels(
        "forum_hasModerator_person.csv",
        "HAS_MODERATOR",
        "Forum",
        "Person",
        ":START_ID(Forum),:END_ID(Person)",
    ),
    rels(
        "forum_hasTag_tag.csv",
        "HAS_TAG",
        "Forum",
        "Tag",
        ":START_ID(Forum),:END_ID(Tag)",
    ),
    rels(
        "forum_containerOf_post.csv",
        "CONTAINER_OF",
        "Forum",
        "Post",
        ":START_ID(Forum),:END_ID(Message)",
    ),
    rels(
        "post_hasTag_tag.csv",
        "HAS_TAG",
        "Post",
        "Tag",
        ":START_ID(Message),:END_ID(Tag)",
    ),
    rels(
        "comment_hasTag_tag.csv",
        "HAS_TAG",
        "Comment",
        "Tag",
        ":START_ID(Message),:END_ID(Tag)",
    ),
    rels(
        "post_hasCreator_person.csv",
        "HAS_CREATOR",
        "Post",
        "Person",
        ":START_ID(Message),:END_ID(Person)",
    ),
    rels(
        "comment_hasCreator_person.csv",
        "HAS_CREATOR",
        "Comment",
        "Person",
        ":START_ID(Message),:END_ID(Person)",
    ),
    rels(
        "post_isLocatedIn_country.csv",
        "IS_LOCATED_IN",
        "Post",
        "Country",
        ":START_ID(Message),:END_ID(Place)",
    ),
    rels(
        "comment_isLocatedIn_country.csv",
        "IS_LOCATED_IN",
        "Comment",
        "Country",
        ":START_ID(Message),:END_ID(Place)",
    ),
    rels(
        "comment_replyOf_post.csv",
        "REPLY_OF",
        "Comment",
        "Post",
        ":START_ID(Message),:END_ID(Message)",
    ),
    rels(
        "comment_replyOf_comment.csv",
        "REPLY_OF",
        "Comment",
        "Comment",
        ":START_ID(Message),:END_ID(Message)",
    ),
    rels(
        "city_isPartOf_country.csv",
        "IS_PART_OF",
        "City",
        "Country",
        ":START_ID(Place),:END_ID(Place)",
    ),
    rels(
        "country_isPartOf_continent.csv",
        "IS_PART_OF",
        "Country",
        "Continent",
        ":START_ID(Place),:END_ID(Place)",
    ),
    rels(
        "university_isLocatedIn_city.csv",
        "IS_LOCATED_IN",
        "University",
        "City",
        ":START_ID(Organisation),:END_ID(Place)",
    ),
    rels(
        "company_isLocatedIn_country.csv",
        "IS_LOCATED_IN",
        "Company",
        "Country",
        ":START_ID(Organisation),:END_ID(Place)",
    ),
    rels(
        "tag_hasType_tagclass.csv",
        "HAS_TYPE",
        "Tag",
        "TagClass",
        ":START_ID(Tag),:END_ID(TagClass)",
    ),
    rels(
        "tagclass_isSubclassOf_tagclass.csv",
        "IS_SUBCLASS_OF",
        "TagClass",
        "TagClass",
        ":START_ID(TagClass),:END_ID(TagClass)",
    ),
];

const _: () = {
    assert!(FILES.len() == F::TagClassIsSubclassOfTagClass as usize + 1);
};

/// The directory the bulk files are in, under the output directory.
pub const BULK_DIR: &str = "bulk";

/// One row being written: fields appended in the header's order.
pub struct Fields<'a> {
    buf: &'a mut Vec<u8>,
    first: bool,
}

impl Fields<'_> {
    fn sep(&mut self) {
        if !self.first {
            self.buf.push(b',');
        }
        self.first = false;
    }

    pub fn int(&mut self, v: i64) -> &mut Self {
        self.sep();
        let mut digits = [0u8; 20];
        let mut n = 0;
        let mut u = v.unsigned_abs();
        while u > 0 || n == 0 {
            digits[n] = b'0' + (u % 10) as u8;
            u /= 10;
            n += 1;
        }
        if v < 0 {
            self.buf.push(b'-');
        }
        self.buf.extend(digits[..n].iter().rev());
        self
    }

    pub fn text(&mut self, s: &str) -> &mut Self {
        self.sep();
        push_text(self.buf, s);
        self
    }

    pub fn datetime(&mut self, t: Millis) -> &mut Self {
        self.sep();
        push_datetime(self.buf, t);
        self
    }

    pub fn date(&mut self, d: Days) -> &mut Self {
        self.sep();
        push_date(self.buf, d);
        self
    }

    /// An array field: the items joined by `;`, quoted as one field when needed.
    pub fn list(&mut self, items: &[String]) -> &mut Self {
        self.sep();
        push_text(self.buf, &items.join(";"));
        self
    }
}

fn push_text(buf: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        buf.push(b'"');
        for b in s.bytes() {
            if b == b'"' {
                buf.push(b'"');
            }
            buf.push(b);
        }
        buf.push(b'"');
    } else {
        buf.extend_from_slice(s.as_bytes());
    }
}

/// The open bulk files and their row counts.
pub struct Bulk {
    dir: PathBuf,
    writers: Vec<BufWriter<File>>,
    pub rows: Vec<u64>,
    buf: Vec<u8>,
}

impl Bulk {
    /// Creates `dir/bulk/` and every file in it, each with its header line.
    pub fn create(dir: &Path) -> io::Result<Bulk> {
        let dir = dir.join(BULK_DIR);
        std::fs::create_dir_all(&dir)?;
        let mut writers = Vec::with_capacity(FILES.len());
        for file in &FILES {
            let mut w = BufWriter::with_capacity(1 << 16, File::create(dir.join(file.name))?);
            w.write_all(file.header.as_bytes())?;
            w.write_all(b"\n")?;
            writers.push(w);
        }
        Ok(Bulk {
            dir,
            writers,
            rows: vec![0; FILES.len()],
            buf: Vec::with_capacity(4096),
        })
    }

    /// Writes one row to `file`, its fields filled by `fill`.
    pub fn row(&mut self, file: F, fill: impl FnOnce(&mut Fields<'_>)) -> io::Result<()> {
        self.buf.clear();
        fill(&mut Fields {
            buf: &mut self.buf,
            first: true,
        });
        self.buf.push(b'\n');
        self.rows[file as usize] += 1;
        self.writers[file as usize].write_all(&self.buf)
    }

    /// A relationship row with no properties.
    pub fn pair(&mut self, file: F, start: i64, end: i64) -> io::Result<()> {
        self.row(file, |f| {
            f.int(start).int(end);
        })
    }

    /// Flushes and closes every file; the row counts stay.
    pub fn finish(&mut self) -> io::Result<()> {
        for w in &mut self.writers {
            w.flush()?;
        }
        self.writers.clear();
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
