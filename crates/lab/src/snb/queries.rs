//! The Interactive workload's 29 operations in Cypher, as Neo4j 5 runs them, and the
//! parameters each binds.
//!
//! Each query is written from the specification's definition of its operation: what it
//! returns, its filters, its order and its limit. Result columns carry the names the
//! specification gives them (`friendId`, `personId`, `messageId`, …), so a driver reads the
//! person and message ids it walks on by name ([`result_ids`]). Parameters keep the
//! specification's names too (`$personId`, `$maxDate`, `$durationDays`, …): times are bound
//! as UTC `datetime`s (the operation holds epoch milliseconds), a date of birth as a `date`,
//! and windows of days are turned into datetimes by the query itself.
//!
//! Two conventions of the graph the queries depend on: a `Post` holds either `content` or
//! `imageFile` and leaves the other absent (a message's text is
//! `coalesce(content, imageFile)`, as the specification's "content or imageFile"), and the
//! seeks start from `id` (and `name`) properties, which the data set's
//! [`SCHEMA`](super::datagen::SCHEMA) constrains and so indexes.
//!
//! Ties the specification leaves unordered stay unordered here: IC12's `tagNames` are a set,
//! and IC14's paths of equal weight come in any order.

use std::sync::Arc;

use quiver_value::{Date, DateTime, Map, TimeZone, Value};

use super::ops::{AddComment, AddForum, AddPerson, AddPost, Days, Kind, Millis, Operation};

/// One operation as Cypher: its text and the parameters it binds.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    pub text: &'static str,
    pub params: Map,
}

/// IC1, friends with a given first name: persons with `$firstName` within three KNOWS hops
/// of the start (the start excluded), each at its shortest distance, with where they live,
/// study and work. Order: distance, last name, id; 20 rows.
///
/// One shortest path to each candidate (`ANY SHORTEST` with an open end) gives the
/// distance; the summaries are gathered for the 20 kept only. A university or company
/// summary is a list `[name, classYear or workFrom, city or country name]`.
const IC1: &str = "\
MATCH path = ANY SHORTEST (start:Person {id: $personId})-[:KNOWS]-{1,3}(friend:Person {firstName: $firstName})
WHERE friend <> start
WITH friend, length(path) AS distanceFromPerson
ORDER BY distanceFromPerson ASC, friend.lastName ASC, friend.id ASC
LIMIT 20
MATCH (friend)-[:IS_LOCATED_IN]->(friendCity:City)
OPTIONAL MATCH (friend)-[studyAt:STUDY_AT]->(university:University)-[:IS_LOCATED_IN]->(universityCity:City)
WITH friend, distanceFromPerson, friendCity,
     collect(CASE WHEN university IS NOT NULL
                  THEN [university.name, studyAt.classYear, universityCity.name] END) AS friendUniversities
OPTIONAL MATCH (friend)-[workAt:WORK_AT]->(company:Company)-[:IS_LOCATED_IN]->(companyCountry:Country)
WITH friend, distanceFromPerson, friendCity, friendUniversities,
     collect(CASE WHEN company IS NOT NULL
                  THEN [company.name, workAt.workFrom, companyCountry.name] END) AS friendCompanies
RETURN friend.id AS friendId,
       friend.lastName AS friendLastName,
       distanceFromPerson,
       friend.birthday AS friendBirthday,
       friend.creationDate AS friendCreationDate,
       friend.gender AS friendGender,
       friend.browserUsed AS friendBrowserUsed,
       friend.locationIP AS friendLocationIp,
       friend.emails AS friendEmails,
       friend.languages AS friendLanguages,
       friendCity.name AS friendCityName,
       friendUniversities,
       friendCompanies
ORDER BY distanceFromPerson ASC, friendLastName ASC, friendId ASC";

/// IC2, recent messages of friends: the 20 latest messages of the start's friends created
/// at or before `$maxDate`. Order: creation date descending, message id.
const IC2: &str = "\
MATCH (:Person {id: $personId})-[:KNOWS]-(friend:Person)<-[:HAS_CREATOR]-(message:Message)
WHERE message.creationDate <= $maxDate
RETURN friend.id AS personId,
       friend.firstName AS personFirstName,
       friend.lastName AS personLastName,
       message.id AS messageId,
       coalesce(message.content, message.imageFile) AS messageContent,
       message.creationDate AS messageCreationDate
ORDER BY messageCreationDate DESC, messageId ASC
LIMIT 20";

/// IC3, friends within two hops who were in countries X and Y: persons living outside
/// both countries who wrote messages located in each of them within
/// `[$startDate, $startDate + $durationDays days)`. Order: messages in X descending, id;
/// 20 rows.
const IC3: &str = "\
MATCH (countryX:Country {name: $countryXName}), (countryY:Country {name: $countryYName})
MATCH (start:Person {id: $personId})-[:KNOWS*1..2]-(friend:Person)
WHERE friend <> start
WITH DISTINCT friend, countryX, countryY
MATCH (friend)-[:IS_LOCATED_IN]->(:City)-[:IS_PART_OF]->(home:Country)
WHERE home <> countryX AND home <> countryY
WITH friend, countryX, countryY, $startDate + duration({days: $durationDays}) AS endDate
MATCH (friend)<-[:HAS_CREATOR]-(message:Message)-[:IS_LOCATED_IN]->(country:Country)
WHERE (country = countryX OR country = countryY)
  AND $startDate <= message.creationDate < endDate
WITH friend,
     count(CASE WHEN country = countryX THEN message END) AS xCount,
     count(CASE WHEN country = countryY THEN message END) AS yCount
WHERE xCount > 0 AND yCount > 0
RETURN friend.id AS personId,
       friend.firstName AS personFirstName,
       friend.lastName AS personLastName,
       xCount,
       yCount,
       xCount + yCount AS count
ORDER BY xCount DESC, personId ASC
LIMIT 20";

/// IC4, new topics: tags on friends' posts created within
/// `[$startDate, $startDate + $durationDays days)` that no friend's post before
/// `$startDate` carries, with the number of posts in the window. Order: count
/// descending, tag name; 10 rows.
const IC4: &str = "\
MATCH (:Person {id: $personId})-[:KNOWS]-(friend:Person)<-[:HAS_CREATOR]-(post:Post)-[:HAS_TAG]->(tag:Tag)
WITH tag, post, $startDate + duration({days: $durationDays}) AS endDate
WITH tag,
     count(CASE WHEN $startDate <= post.creationDate < endDate THEN post END) AS postCount,
     count(CASE WHEN post.creationDate < $startDate THEN post END) AS earlierCount
WHERE postCount > 0 AND earlierCount = 0
RETURN tag.name AS tagName, postCount
ORDER BY postCount DESC, tagName ASC
LIMIT 10";

/// IC5, new groups: forums that friends within two hops joined after `$minDate`, each with
/// the number of posts in it written by those of them who joined it after that date
/// (zero counts too). Order: count descending, forum id; 20 rows.
///
/// The friends are gathered per forum first and the forum's posts read once, each author
/// looked for among them: matching each (friend, forum) pair's posts instead reads every
/// post of a friend once per forum they joined (ten times the work at SF0.1).
const IC5: &str = "\
MATCH (start:Person {id: $personId})-[:KNOWS*1..2]-(friend:Person)
WHERE friend <> start
WITH DISTINCT friend
MATCH (friend)<-[membership:HAS_MEMBER]-(forum:Forum)
WHERE membership.joinDate > $minDate
WITH forum, collect(friend) AS friends
OPTIONAL MATCH (forum)-[:CONTAINER_OF]->(post:Post)-[:HAS_CREATOR]->(author:Person)
WHERE author IN friends
WITH forum, count(post) AS postCount
RETURN forum.title AS forumTitle, postCount
ORDER BY postCount DESC, forum.id ASC
LIMIT 20";

/// IC6, tag co-occurrence: the other tags on posts that carry `$tagName` and were written
/// by friends within two hops, each with the number of such posts. Order: count
/// descending, tag name; 10 rows.
const IC6: &str = "\
MATCH (knownTag:Tag {name: $tagName})
MATCH (start:Person {id: $personId})-[:KNOWS*1..2]-(friend:Person)
WHERE friend <> start
WITH DISTINCT knownTag, friend
MATCH (friend)<-[:HAS_CREATOR]-(post:Post)-[:HAS_TAG]->(knownTag)
MATCH (post)-[:HAS_TAG]->(tag:Tag)
WHERE tag <> knownTag
RETURN tag.name AS tagName, count(post) AS postCount
ORDER BY postCount DESC, tagName ASC
LIMIT 10";

/// IC7, recent likers: each person who liked one of the start's messages, with their
/// latest like (on equal times, the message with the lowest id), the minutes from the
/// message to the like (whole minutes, rounded down) and whether they are not a friend.
/// Order: like date descending, liker id; 20 rows.
///
/// The latest like is the head of each liker's likes collected in that order (Neo4j keeps
/// the order of the rows a `collect` reads).
const IC7: &str = "\
MATCH (start:Person {id: $personId})<-[:HAS_CREATOR]-(message:Message)<-[like:LIKES]-(liker:Person)
WITH start, liker, message, like.creationDate AS likeTime
ORDER BY likeTime DESC, message.id ASC
WITH start, liker, head(collect({message: message, likeTime: likeTime})) AS latest
WITH start, liker, latest.message AS message, latest.likeTime AS likeTime
RETURN liker.id AS personId,
       liker.firstName AS personFirstName,
       liker.lastName AS personLastName,
       likeTime AS likeCreationDate,
       message.id AS commentOrPostId,
       coalesce(message.content, message.imageFile) AS commentOrPostContent,
       duration.inSeconds(message.creationDate, likeTime).minutes AS minutesLatency,
       NOT EXISTS { (liker)-[:KNOWS]-(start) } AS isNew
ORDER BY likeCreationDate DESC, personId ASC
LIMIT 20";

/// IC8, recent replies: the 20 latest comments that reply directly to one of the start's
/// messages, with their authors. Order: comment date descending, comment id.
const IC8: &str = "\
MATCH (:Person {id: $personId})<-[:HAS_CREATOR]-(:Message)<-[:REPLY_OF]-(comment:Comment)-[:HAS_CREATOR]->(author:Person)
RETURN author.id AS personId,
       author.firstName AS personFirstName,
       author.lastName AS personLastName,
       comment.creationDate AS commentCreationDate,
       comment.id AS commentId,
       comment.content AS commentContent
ORDER BY commentCreationDate DESC, commentId ASC
LIMIT 20";

/// IC9, recent messages of friends within two hops: the 20 latest messages of friends and
/// friends of friends created strictly before `$maxDate`. Order: creation date
/// descending, message id.
const IC9: &str = "\
MATCH (start:Person {id: $personId})-[:KNOWS*1..2]-(friend:Person)
WHERE friend <> start
WITH DISTINCT friend
MATCH (friend)<-[:HAS_CREATOR]-(message:Message)
WHERE message.creationDate < $maxDate
RETURN friend.id AS personId,
       friend.firstName AS personFirstName,
       friend.lastName AS personLastName,
       message.id AS messageId,
       coalesce(message.content, message.imageFile) AS messageContent,
       message.creationDate AS messageCreationDate
ORDER BY messageCreationDate DESC, messageId ASC
LIMIT 20";

/// IC10, friend recommendation: friends of friends (neither the start nor a friend) born
/// on or after the 21st of `$month` and before the 22nd of the month after (December
/// runs into January), scored by their posts with a tag the start is interested in minus
/// their other posts. Order: score descending, id; 10 rows.
const IC10: &str = "\
MATCH (start:Person {id: $personId})-[:KNOWS*2..2]-(candidate:Person)
WHERE candidate <> start AND NOT EXISTS { (candidate)-[:KNOWS]-(start) }
WITH DISTINCT start, candidate
WHERE (candidate.birthday.month = $month AND candidate.birthday.day >= 21)
   OR (candidate.birthday.month = $month % 12 + 1 AND candidate.birthday.day < 22)
MATCH (candidate)-[:IS_LOCATED_IN]->(city:City)
WITH candidate, city,
     COUNT { (candidate)<-[:HAS_CREATOR]-(:Post) } AS postCount,
     COUNT { (candidate)<-[:HAS_CREATOR]-(post:Post)
             WHERE EXISTS { (post)-[:HAS_TAG]->(:Tag)<-[:HAS_INTEREST]-(start) } } AS commonPostCount
RETURN candidate.id AS personId,
       candidate.firstName AS personFirstName,
       candidate.lastName AS personLastName,
       commonPostCount - (postCount - commonPostCount) AS commonInterestScore,
       candidate.gender AS personGender,
       city.name AS personCityName
ORDER BY commonInterestScore DESC, personId ASC
LIMIT 10";

/// IC11, job referral: friends within two hops who started working before
/// `$workFromYear` at a company located in `$countryName`. Order: start year, person id,
/// company name descending; 10 rows.
const IC11: &str = "\
MATCH (start:Person {id: $personId})-[:KNOWS*1..2]-(friend:Person)
WHERE friend <> start
WITH DISTINCT friend
MATCH (friend)-[workAt:WORK_AT]->(company:Company)-[:IS_LOCATED_IN]->(:Country {name: $countryName})
WHERE workAt.workFrom < $workFromYear
RETURN friend.id AS personId,
       friend.firstName AS personFirstName,
       friend.lastName AS personLastName,
       company.name AS organizationName,
       workAt.workFrom AS organizationWorkFromYear
ORDER BY organizationWorkFromYear ASC, personId ASC, organizationName DESC
LIMIT 10";

/// IC12, expert search: friends' comments replying directly to a post with a tag of
/// `$tagClassName` or of one of its descendants, counted per friend, with the names of
/// those tags (a set: its order is not defined). Order: count descending, id; 20 rows.
const IC12: &str = "\
MATCH (:Person {id: $personId})-[:KNOWS]-(friend:Person)<-[:HAS_CREATOR]-(comment:Comment)-[:REPLY_OF]->(:Post)-[:HAS_TAG]->(tag:Tag)
WHERE EXISTS { (tag)-[:HAS_TYPE]->(:TagClass)-[:IS_SUBCLASS_OF]->*(:TagClass {name: $tagClassName}) }
RETURN friend.id AS personId,
       friend.firstName AS personFirstName,
       friend.lastName AS personLastName,
       collect(DISTINCT tag.name) AS tagNames,
       count(DISTINCT comment) AS replyCount
ORDER BY replyCount DESC, personId ASC
LIMIT 20";

/// IC13, single shortest path: the length of a shortest KNOWS path between the two
/// persons; 0 when they are the same person, -1 when no path joins them.
///
/// Written with GQL's `ANY SHORTEST` rather than the official `shortestPath`: Quiver searches
/// a GQL selector between two bound nodes from both ends (`shortestPath` keeps its one-sided
/// search so that which equal path it returns stays put), and the length is the same. At
/// the SF1 shape that is 5.5 → 0.7 ms a read, same answers on 100 parameters.
const IC13: &str = "\
MATCH (person1:Person {id: $person1Id}), (person2:Person {id: $person2Id})
OPTIONAL MATCH path = ANY SHORTEST (person1)-[:KNOWS]-*(person2)
RETURN CASE WHEN path IS NULL THEN -1 ELSE length(path) END AS shortestPathLength";

/// IC14, trusted connection paths: every shortest KNOWS path between the two persons, each
/// weighted by the sum over its consecutive pairs of their replies to each other: 1.0 for
/// a comment replying to the other's post, 0.5 for one replying to the other's comment.
/// No row when no path joins them. Order: weight descending (ties in any order).
///
/// `ALL SHORTEST` rather than the official `allShortestPaths`, searched from both ends as
/// IC13's is: the same set of paths (checked on 100 parameters at the SF1 shape); the
/// weights, not the search, are most of this query's cost.
const IC14: &str = "\
MATCH (person1:Person {id: $person1Id}), (person2:Person {id: $person2Id})
MATCH path = ALL SHORTEST (person1)-[:KNOWS]-*(person2)
CALL (path) {
  UNWIND relationships(path) AS knows
  WITH startNode(knows) AS a, endNode(knows) AS b
  OPTIONAL MATCH (a)<-[:HAS_CREATOR]-(m1:Message)-[:REPLY_OF]-(m2:Message)-[:HAS_CREATOR]->(b)
  RETURN sum(CASE WHEN m1 IS NULL THEN 0.0
                  WHEN m1:Post OR m2:Post THEN 1.0
                  ELSE 0.5 END) AS weight
}
RETURN [person IN nodes(path) | person.id] AS personIdsInPath, toFloat(weight) AS pathWeight
ORDER BY pathWeight DESC";

/// IS1, a person's profile.
const IS1: &str = "\
MATCH (person:Person {id: $personId})-[:IS_LOCATED_IN]->(city:City)
RETURN person.firstName AS firstName,
       person.lastName AS lastName,
       person.birthday AS birthday,
       person.locationIP AS locationIP,
       person.browserUsed AS browserUsed,
       city.id AS cityId,
       person.gender AS gender,
       person.creationDate AS creationDate";

/// IS2, a person's recent messages: their 10 latest, each with the post that starts its
/// thread (itself for a post) and that post's author. Order: creation date descending,
/// message id descending.
const IS2: &str = "\
MATCH (:Person {id: $personId})<-[:HAS_CREATOR]-(message:Message)
WITH message
ORDER BY message.creationDate DESC, message.id DESC
LIMIT 10
MATCH (message)-[:REPLY_OF]->*(post:Post)-[:HAS_CREATOR]->(author:Person)
RETURN message.id AS messageId,
       coalesce(message.content, message.imageFile) AS messageContent,
       message.creationDate AS messageCreationDate,
       post.id AS originalPostId,
       author.id AS originalPostAuthorId,
       author.firstName AS originalPostAuthorFirstName,
       author.lastName AS originalPostAuthorLastName
ORDER BY messageCreationDate DESC, messageId DESC";

/// IS3, a person's friends, with the date of each friendship. Order: that date
/// descending, friend id.
const IS3: &str = "\
MATCH (:Person {id: $personId})-[knows:KNOWS]-(friend:Person)
RETURN friend.id AS personId,
       friend.firstName AS firstName,
       friend.lastName AS lastName,
       knows.creationDate AS friendshipCreationDate
ORDER BY friendshipCreationDate DESC, personId ASC";

/// IS4, a message's content and creation date.
const IS4: &str = "\
MATCH (message:Message {id: $messageId})
RETURN message.creationDate AS messageCreationDate,
       coalesce(message.content, message.imageFile) AS messageContent";

/// IS5, a message's creator.
const IS5: &str = "\
MATCH (:Message {id: $messageId})-[:HAS_CREATOR]->(person:Person)
RETURN person.id AS personId, person.firstName AS firstName, person.lastName AS lastName";

/// IS6, the forum a message is in (for a comment, its thread's post's forum) and that
/// forum's moderator.
const IS6: &str = "\
MATCH (:Message {id: $messageId})-[:REPLY_OF]->*(:Post)<-[:CONTAINER_OF]-(forum:Forum)-[:HAS_MODERATOR]->(moderator:Person)
RETURN forum.id AS forumId,
       forum.title AS forumTitle,
       moderator.id AS moderatorId,
       moderator.firstName AS moderatorFirstName,
       moderator.lastName AS moderatorLastName";

/// IS7, a message's direct replies, with their authors and whether each author knows the
/// message's author (false for the author replying to themselves). Order: reply date
/// descending, reply author id.
const IS7: &str = "\
MATCH (message:Message {id: $messageId})-[:HAS_CREATOR]->(author:Person)
MATCH (message)<-[:REPLY_OF]-(comment:Comment)-[:HAS_CREATOR]->(replyAuthor:Person)
RETURN comment.id AS commentId,
       comment.content AS commentContent,
       comment.creationDate AS commentCreationDate,
       replyAuthor.id AS replyAuthorId,
       replyAuthor.firstName AS replyAuthorFirstName,
       replyAuthor.lastName AS replyAuthorLastName,
       EXISTS { (replyAuthor)-[:KNOWS]-(author) } AS replyAuthorKnowsOriginalMessageAuthor
ORDER BY commentCreationDate DESC, replyAuthorId ASC";

/// IU1, a person joins: the person in their city, with their interests, studies and jobs
/// (`$studyAt` and `$workAt` are lists of `{id, classYear}` and `{id, workFrom}`).
const IU1: &str = "\
MATCH (city:City {id: $cityId})
CREATE (person:Person {
    id: $personId, firstName: $personFirstName, lastName: $personLastName, gender: $gender,
    birthday: $birthday, creationDate: $creationDate, locationIP: $locationIP,
    browserUsed: $browserUsed, languages: $languages, emails: $emails
  })-[:IS_LOCATED_IN]->(city)
WITH person
CALL (person) {
  UNWIND $tagIds AS tagId
  MATCH (tag:Tag {id: tagId})
  CREATE (person)-[:HAS_INTEREST]->(tag)
}
CALL (person) {
  UNWIND $studyAt AS study
  MATCH (university:University {id: study.id})
  CREATE (person)-[:STUDY_AT {classYear: study.classYear}]->(university)
}
CALL (person) {
  UNWIND $workAt AS work
  MATCH (company:Company {id: work.id})
  CREATE (person)-[:WORK_AT {workFrom: work.workFrom}]->(company)
}";

/// IU2, a like of a post.
const IU2: &str = "\
MATCH (person:Person {id: $personId}), (post:Post {id: $postId})
CREATE (person)-[:LIKES {creationDate: $creationDate}]->(post)";

/// IU3, a like of a comment.
const IU3: &str = "\
MATCH (person:Person {id: $personId}), (comment:Comment {id: $commentId})
CREATE (person)-[:LIKES {creationDate: $creationDate}]->(comment)";

/// IU4, a forum is opened, with its moderator and tags.
const IU4: &str = "\
MATCH (moderator:Person {id: $moderatorPersonId})
CREATE (forum:Forum {id: $forumId, title: $forumTitle, creationDate: $creationDate})
       -[:HAS_MODERATOR]->(moderator)
WITH forum
CALL (forum) {
  UNWIND $tagIds AS tagId
  MATCH (tag:Tag {id: tagId})
  CREATE (forum)-[:HAS_TAG]->(tag)
}";

/// IU5, a person joins a forum.
const IU5: &str = "\
MATCH (forum:Forum {id: $forumId}), (person:Person {id: $personId})
CREATE (forum)-[:HAS_MEMBER {joinDate: $joinDate}]->(person)";

/// IU6, a post is written in a forum: by its author, located in a country, with its tags.
/// An image post binds `$content` and `$language` as null, a text post `$imageFile`, so
/// the property it lacks stays absent.
const IU6: &str = "\
MATCH (author:Person {id: $authorPersonId}), (forum:Forum {id: $forumId}), (country:Country {id: $countryId})
CREATE (forum)-[:CONTAINER_OF]->(post:Post:Message {
    id: $postId, imageFile: $imageFile, creationDate: $creationDate, locationIP: $locationIP,
    browserUsed: $browserUsed, language: $language, content: $content, length: $length
  })-[:HAS_CREATOR]->(author),
  (post)-[:IS_LOCATED_IN]->(country)
WITH post
CALL (post) {
  UNWIND $tagIds AS tagId
  MATCH (tag:Tag {id: tagId})
  CREATE (post)-[:HAS_TAG]->(tag)
}";

/// IU7, a comment replies to a post (`$replyToCommentId` is -1) or to a comment
/// (`$replyToPostId` is -1): by its author, located in a country, with its tags.
const IU7: &str = "\
MATCH (author:Person {id: $authorPersonId}), (country:Country {id: $countryId})
MATCH (message:Message {id: CASE $replyToPostId WHEN -1 THEN $replyToCommentId ELSE $replyToPostId END})
CREATE (message)<-[:REPLY_OF]-(comment:Comment:Message {
    id: $commentId, creationDate: $creationDate, locationIP: $locationIP,
    browserUsed: $browserUsed, content: $content, length: $length
  })-[:HAS_CREATOR]->(author),
  (comment)-[:IS_LOCATED_IN]->(country)
WITH comment
CALL (comment) {
  UNWIND $tagIds AS tagId
  MATCH (tag:Tag {id: tagId})
  CREATE (comment)-[:HAS_TAG]->(tag)
}";

/// IU8, two persons become friends (one KNOWS, read undirected).
const IU8: &str = "\
MATCH (person1:Person {id: $person1Id}), (person2:Person {id: $person2Id})
CREATE (person1)-[:KNOWS {creationDate: $creationDate}]->(person2)";

/// The Cypher of an operation kind.
pub fn text(kind: Kind) -> &'static str {
    match kind {
        Kind::Ic1 => IC1,
        Kind::Ic2 => IC2,
        Kind::Ic3 => IC3,
        Kind::Ic4 => IC4,
        Kind::Ic5 => IC5,
        Kind::Ic6 => IC6,
        Kind::Ic7 => IC7,
        Kind::Ic8 => IC8,
        Kind::Ic9 => IC9,
        Kind::Ic10 => IC10,
        Kind::Ic11 => IC11,
        Kind::Ic12 => IC12,
        Kind::Ic13 => IC13,
        Kind::Ic14 => IC14,
        Kind::Is1 => IS1,
        Kind::Is2 => IS2,
        Kind::Is3 => IS3,
        Kind::Is4 => IS4,
        Kind::Is5 => IS5,
        Kind::Is6 => IS6,
        Kind::Is7 => IS7,
        Kind::Iu1 => IU1,
        Kind::Iu2 => IU2,
        Kind::Iu3 => IU3,
        Kind::Iu4 => IU4,
        Kind::Iu5 => IU5,
        Kind::Iu6 => IU6,
        Kind::Iu7 => IU7,
        Kind::Iu8 => IU8,
    }
}

/// The result columns of a kind that hold person ids and message ids, in that order: what a
/// driver reads out of a complex read's rows to choose the short reads that follow it.
/// IC14's `personIdsInPath` holds a list of ids; every other column one id.
pub fn result_ids(kind: Kind) -> (&'static [&'static str], &'static [&'static str]) {
    match kind {
        Kind::Ic1 => (&["friendId"], &[]),
        Kind::Ic2 | Kind::Ic9 => (&["personId"], &["messageId"]),
        Kind::Ic3 | Kind::Ic10 | Kind::Ic11 | Kind::Ic12 => (&["personId"], &[]),
        Kind::Ic7 => (&["personId"], &["commentOrPostId"]),
        Kind::Ic8 => (&["personId"], &["commentId"]),
        Kind::Ic14 => (&["personIdsInPath"], &[]),
        Kind::Is2 => (&["originalPostAuthorId"], &["messageId", "originalPostId"]),
        Kind::Is3 | Kind::Is5 => (&["personId"], &[]),
        Kind::Is6 => (&["moderatorId"], &[]),
        Kind::Is7 => (&["replyAuthorId"], &["commentId"]),
        Kind::Ic4
        | Kind::Ic5
        | Kind::Ic6
        | Kind::Ic13
        | Kind::Is1
        | Kind::Is4
        | Kind::Iu1
        | Kind::Iu2
        | Kind::Iu3
        | Kind::Iu4
        | Kind::Iu5
        | Kind::Iu6
        | Kind::Iu7
        | Kind::Iu8 => (&[], &[]),
    }
}

/// A time in epoch milliseconds as a UTC `datetime`.
pub fn datetime(millis: Millis) -> Value {
    Value::DateTime(Box::new(DateTime {
        seconds: millis.div_euclid(1000),
        // Below 1,000 milliseconds, so below 10^9 nanoseconds: it fits.
        nanos: (millis.rem_euclid(1000) * 1_000_000) as u32,
        offset_seconds: 0,
        zone: TimeZone::Offset(0),
    }))
}

/// A day since the epoch as a `date`.
pub fn date(days: Days) -> Value {
    Value::Date(Date {
        days: i64::from(days),
    })
}

fn string(s: &str) -> Value {
    Value::String(Arc::from(s))
}

/// A string that is absent when empty (a post's missing content, language or image).
fn optional_string(s: &str) -> Value {
    if s.is_empty() { Value::Null } else { string(s) }
}

fn strings(items: &[String]) -> Value {
    Value::List(items.iter().map(|s| string(s)).collect())
}

fn ints(items: &[i64]) -> Value {
    Value::List(items.iter().map(|&i| Value::Int(i)).collect())
}

/// `[{id, <key>}]` from (id, value) pairs.
fn id_pairs(items: &[(i64, i64)], key: &str) -> Value {
    Value::List(
        items
            .iter()
            .map(|&(id, value)| {
                let entry: Map = [
                    (Arc::from("id"), Value::Int(id)),
                    (Arc::from(key), Value::Int(value)),
                ]
                .into_iter()
                .collect();
                Value::Map(Arc::new(entry))
            })
            .collect(),
    )
}

fn params<const N: usize>(entries: [(&str, Value); N]) -> Map {
    entries
        .into_iter()
        .map(|(key, value)| (Arc::from(key), value))
        .collect()
}

/// The statement that runs `op`: its kind's text and its parameters bound.
pub fn statement(op: &Operation) -> Statement {
    Statement {
        text: text(op.kind()),
        params: complex_params(op),
    }
}

fn id(v: &i64) -> Value {
    Value::Int(*v)
}

/// A complex read's parameters, or (for any other kind) [`other_params`].
fn complex_params(op: &Operation) -> Map {
    match op {
        Operation::Ic1 {
            person_id,
            first_name,
        } => params([
            ("personId", id(person_id)),
            ("firstName", string(first_name)),
        ]),
        Operation::Ic2 {
            person_id,
            max_date,
        }
        | Operation::Ic9 {
            person_id,
            max_date,
        } => params([
            ("personId", id(person_id)),
            ("maxDate", datetime(*max_date)),
        ]),
        Operation::Ic3 {
            person_id,
            country_x_name,
            country_y_name,
            start_date,
            duration_days,
        } => params([
            ("personId", id(person_id)),
            ("countryXName", string(country_x_name)),
            ("countryYName", string(country_y_name)),
            ("startDate", datetime(*start_date)),
            ("durationDays", Value::Int(*duration_days)),
        ]),
        Operation::Ic4 {
            person_id,
            start_date,
            duration_days,
        } => params([
            ("personId", id(person_id)),
            ("startDate", datetime(*start_date)),
            ("durationDays", Value::Int(*duration_days)),
        ]),
        Operation::Ic5 {
            person_id,
            min_date,
        } => params([
            ("personId", id(person_id)),
            ("minDate", datetime(*min_date)),
        ]),
        Operation::Ic6 {
            person_id,
            tag_name,
        } => params([("personId", id(person_id)), ("tagName", string(tag_name))]),
        Operation::Ic7 { person_id } | Operation::Ic8 { person_id } => {
            params([("personId", id(person_id))])
        }
        Operation::Ic10 { person_id, month } => {
            params([("personId", id(person_id)), ("month", Value::Int(*month))])
        }
        Operation::Ic11 {
            person_id,
            country_name,
            work_from_year,
        } => params([
            ("personId", id(person_id)),
            ("countryName", string(country_name)),
            ("workFromYear", Value::Int(*work_from_year)),
        ]),
        Operation::Ic12 {
            person_id,
            tag_class_name,
        } => params([
            ("personId", id(person_id)),
            ("tagClassName", string(tag_class_name)),
        ]),
        Operation::Ic13 {
            person1_id,
            person2_id,
        }
        | Operation::Ic14 {
            person1_id,
            person2_id,
        } => params([("person1Id", id(person1_id)), ("person2Id", id(person2_id))]),
        other => other_params(other),
    }
}

/// A short read's or an update's parameters.
fn other_params(op: &Operation) -> Map {
    match op {
        Operation::Is1 { person_id }
        | Operation::Is2 { person_id }
        | Operation::Is3 { person_id } => params([("personId", id(person_id))]),
        Operation::Is4 { message_id }
        | Operation::Is5 { message_id }
        | Operation::Is6 { message_id }
        | Operation::Is7 { message_id } => params([("messageId", id(message_id))]),
        Operation::Iu1(p) => add_person(p),
        Operation::Iu2 {
            person_id,
            post_id,
            creation_date,
        } => params([
            ("personId", id(person_id)),
            ("postId", id(post_id)),
            ("creationDate", datetime(*creation_date)),
        ]),
        Operation::Iu3 {
            person_id,
            comment_id,
            creation_date,
        } => params([
            ("personId", id(person_id)),
            ("commentId", id(comment_id)),
            ("creationDate", datetime(*creation_date)),
        ]),
        Operation::Iu4(f) => add_forum(f),
        Operation::Iu5 {
            forum_id,
            person_id,
            join_date,
        } => params([
            ("forumId", id(forum_id)),
            ("personId", id(person_id)),
            ("joinDate", datetime(*join_date)),
        ]),
        Operation::Iu6(p) => add_post(p),
        Operation::Iu7(c) => add_comment(c),
        Operation::Iu8 {
            person1_id,
            person2_id,
            creation_date,
        } => params([
            ("person1Id", id(person1_id)),
            ("person2Id", id(person2_id)),
            ("creationDate", datetime(*creation_date)),
        ]),
        complex => complex_params(complex),
    }
}

fn add_person(p: &AddPerson) -> Map {
    params([
        ("personId", Value::Int(p.person_id)),
        ("personFirstName", string(&p.first_name)),
        ("personLastName", string(&p.last_name)),
        ("gender", string(&p.gender)),
        ("birthday", date(p.birthday)),
        ("creationDate", datetime(p.creation_date)),
        ("locationIP", string(&p.location_ip)),
        ("browserUsed", string(&p.browser_used)),
        ("cityId", Value::Int(p.city_id)),
        ("languages", strings(&p.languages)),
        ("emails", strings(&p.emails)),
        ("tagIds", ints(&p.tag_ids)),
        ("studyAt", id_pairs(&p.study_at, "classYear")),
        ("workAt", id_pairs(&p.work_at, "workFrom")),
    ])
}

fn add_forum(f: &AddForum) -> Map {
    params([
        ("forumId", Value::Int(f.forum_id)),
        ("forumTitle", string(&f.forum_title)),
        ("creationDate", datetime(f.creation_date)),
        ("moderatorPersonId", Value::Int(f.moderator_person_id)),
        ("tagIds", ints(&f.tag_ids)),
    ])
}

fn add_post(p: &AddPost) -> Map {
    params([
        ("postId", Value::Int(p.post_id)),
        ("imageFile", optional_string(&p.image_file)),
        ("creationDate", datetime(p.creation_date)),
        ("locationIP", string(&p.location_ip)),
        ("browserUsed", string(&p.browser_used)),
        ("language", optional_string(&p.language)),
        ("content", optional_string(&p.content)),
        ("length", Value::Int(p.length)),
        ("authorPersonId", Value::Int(p.author_person_id)),
        ("forumId", Value::Int(p.forum_id)),
        ("countryId", Value::Int(p.country_id)),
        ("tagIds", ints(&p.tag_ids)),
    ])
}

fn add_comment(c: &AddComment) -> Map {
    params([
        ("commentId", Value::Int(c.comment_id)),
        ("creationDate", datetime(c.creation_date)),
        ("locationIP", string(&c.location_ip)),
        ("browserUsed", string(&c.browser_used)),
        ("content", string(&c.content)),
        ("length", Value::Int(c.length)),
        ("authorPersonId", Value::Int(c.author_person_id)),
        ("countryId", Value::Int(c.country_id)),
        ("replyToPostId", Value::Int(c.reply_to_post_id)),
        ("replyToCommentId", Value::Int(c.reply_to_comment_id)),
        ("tagIds", ints(&c.tag_ids)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `$name` a text mentions.
    fn mentioned(text: &str) -> std::collections::BTreeSet<String> {
        let mut names = std::collections::BTreeSet::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            let tail = &rest[at + 1..];
            let end = tail
                .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .unwrap_or(tail.len());
            names.insert(tail[..end].to_owned());
            rest = &tail[end..];
        }
        names
    }

    #[test]
    fn a_datetime_is_the_utc_instant_of_its_milliseconds() {
        let Value::DateTime(t) = datetime(-1) else {
            panic!("not a datetime");
        };
        assert_eq!((t.seconds, t.nanos, t.offset_seconds), (-1, 999_000_000, 0));
        assert_eq!(date(-1), Value::Date(Date { days: -1 }));
    }

    #[test]
    fn an_empty_post_field_is_bound_absent() {
        assert_eq!(optional_string(""), Value::Null);
        assert_eq!(optional_string("x"), string("x"));
    }

    /// Each statement binds exactly the parameters its text mentions, so none is missing
    /// at run time and none is sent for nothing.
    #[test]
    fn statements_bind_what_their_text_mentions() {
        for op in samples() {
            let s = statement(&op);
            let bound: std::collections::BTreeSet<String> =
                s.params.keys().map(ToString::to_string).collect();
            assert_eq!(bound, mentioned(s.text), "{:?}", op.kind());
        }
    }

    /// One operation of every kind.
    fn samples() -> Vec<Operation> {
        let person = r#"{"op":"IU1","person_id":1,"first_name":"A","last_name":"B","gender":"male","birthday":0,"creation_date":0,"location_ip":"1.2.3.4","browser_used":"Firefox","city_id":1,"languages":["en"],"emails":[],"tag_ids":[1],"study_at":[[1,2000]],"work_at":[]}"#;
        let post = r#"{"op":"IU6","post_id":1,"image_file":"","creation_date":0,"location_ip":"1.2.3.4","browser_used":"Firefox","language":"en","content":"hello","length":5,"author_person_id":1,"forum_id":1,"country_id":1,"tag_ids":[]}"#;
        let comment = r#"{"op":"IU7","comment_id":2,"creation_date":0,"location_ip":"1.2.3.4","browser_used":"Firefox","content":"hi","length":2,"author_person_id":1,"country_id":1,"reply_to_post_id":1,"reply_to_comment_id":-1,"tag_ids":[]}"#;
        let lines = [
            r#"{"op":"IC1","person_id":1,"first_name":"A"}"#,
            r#"{"op":"IC2","person_id":1,"max_date":0}"#,
            r#"{"op":"IC3","person_id":1,"country_x_name":"X","country_y_name":"Y","start_date":0,"duration_days":1}"#,
            r#"{"op":"IC4","person_id":1,"start_date":0,"duration_days":1}"#,
            r#"{"op":"IC5","person_id":1,"min_date":0}"#,
            r#"{"op":"IC6","person_id":1,"tag_name":"T"}"#,
            r#"{"op":"IC7","person_id":1}"#,
            r#"{"op":"IC8","person_id":1}"#,
            r#"{"op":"IC9","person_id":1,"max_date":0}"#,
            r#"{"op":"IC10","person_id":1,"month":1}"#,
            r#"{"op":"IC11","person_id":1,"country_name":"X","work_from_year":2000}"#,
            r#"{"op":"IC12","person_id":1,"tag_class_name":"C"}"#,
            r#"{"op":"IC13","person1_id":1,"person2_id":2}"#,
            r#"{"op":"IC14","person1_id":1,"person2_id":2}"#,
            r#"{"op":"IS1","person_id":1}"#,
            r#"{"op":"IS2","person_id":1}"#,
            r#"{"op":"IS3","person_id":1}"#,
            r#"{"op":"IS4","message_id":1}"#,
            r#"{"op":"IS5","message_id":1}"#,
            r#"{"op":"IS6","message_id":1}"#,
            r#"{"op":"IS7","message_id":1}"#,
            person,
            r#"{"op":"IU2","person_id":1,"post_id":1,"creation_date":0}"#,
            r#"{"op":"IU3","person_id":1,"comment_id":1,"creation_date":0}"#,
            r#"{"op":"IU4","forum_id":1,"forum_title":"F","creation_date":0,"moderator_person_id":1,"tag_ids":[]}"#,
            r#"{"op":"IU5","forum_id":1,"person_id":1,"join_date":0}"#,
            post,
            comment,
            r#"{"op":"IU8","person1_id":1,"person2_id":2,"creation_date":0}"#,
        ];
        let ops: Vec<Operation> = lines
            .iter()
            .map(|line| serde_json::from_str(line).expect(line))
            .collect();
        let kinds: Vec<Kind> = ops.iter().map(Operation::kind).collect();
        assert_eq!(kinds, Kind::ALL, "one sample of every kind, in order");
        ops
    }
}
