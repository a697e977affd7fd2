//! The fixed dictionaries the generator draws from: continents and countries (with a
//! population weight and a language), the tag class hierarchy, and the syllables from which
//! every other name (cities, tags, companies, people) is built injectively from a number, so
//! names that must be unique are unique by construction.

pub const CONTINENTS: [&str; 6] = [
    "Africa",
    "Asia",
    "Europe",
    "North_America",
    "Oceania",
    "South_America",
];

/// (name, continent index, language, population weight).
pub const COUNTRIES: [(&str, usize, &str, u32); 111] = [
    ("China", 1, "zh", 130),
    ("India", 1, "hi", 120),
    ("Indonesia", 1, "id", 24),
    ("Pakistan", 1, "ur", 18),
    ("Bangladesh", 1, "bn", 15),
    ("Japan", 1, "ja", 12),
    ("Philippines", 1, "tl", 9),
    ("Vietnam", 1, "vi", 9),
    ("Iran", 1, "fa", 7),
    ("Turkey", 1, "tr", 7),
    ("Thailand", 1, "th", 6),
    ("Myanmar", 1, "my", 5),
    ("South_Korea", 1, "ko", 5),
    ("Iraq", 1, "ar", 3),
    ("Afghanistan", 1, "ps", 3),
    ("Saudi_Arabia", 1, "ar", 3),
    ("Uzbekistan", 1, "uz", 3),
    ("Malaysia", 1, "ms", 3),
    ("Nepal", 1, "ne", 3),
    ("Yemen", 1, "ar", 2),
    ("North_Korea", 1, "ko", 2),
    ("Sri_Lanka", 1, "si", 2),
    ("Kazakhstan", 1, "kk", 2),
    ("Syria", 1, "ar", 2),
    ("Cambodia", 1, "km", 1),
    ("Azerbaijan", 1, "az", 1),
    ("United_Arab_Emirates", 1, "ar", 1),
    ("Israel", 1, "he", 1),
    ("Jordan", 1, "ar", 1),
    ("Laos", 1, "lo", 1),
    ("Lebanon", 1, "ar", 1),
    ("Kyrgyzstan", 1, "ky", 1),
    ("Tajikistan", 1, "tg", 1),
    ("Singapore", 1, "en", 1),
    ("Georgia", 1, "ka", 1),
    ("Russia", 2, "ru", 14),
    ("Germany", 2, "de", 8),
    ("United_Kingdom", 2, "en", 6),
    ("France", 2, "fr", 6),
    ("Italy", 2, "it", 6),
    ("Spain", 2, "es", 5),
    ("Ukraine", 2, "uk", 4),
    ("Poland", 2, "pl", 4),
    ("Romania", 2, "ro", 2),
    ("Netherlands", 2, "nl", 2),
    ("Belgium", 2, "nl", 1),
    ("Greece", 2, "el", 1),
    ("Czech_Republic", 2, "cs", 1),
    ("Portugal", 2, "pt", 1),
    ("Sweden", 2, "sv", 1),
    ("Hungary", 2, "hu", 1),
    ("Belarus", 2, "be", 1),
    ("Austria", 2, "de", 1),
    ("Serbia", 2, "sr", 1),
    ("Switzerland", 2, "de", 1),
    ("Bulgaria", 2, "bg", 1),
    ("Denmark", 2, "da", 1),
    ("Finland", 2, "fi", 1),
    ("Slovakia", 2, "sk", 1),
    ("Norway", 2, "no", 1),
    ("Ireland", 2, "en", 1),
    ("Croatia", 2, "hr", 1),
    ("Moldova", 2, "ro", 1),
    ("Bosnia_and_Herzegovina", 2, "bs", 1),
    ("Albania", 2, "sq", 1),
    ("Lithuania", 2, "lt", 1),
    ("Nigeria", 0, "en", 16),
    ("Ethiopia", 0, "am", 9),
    ("Egypt", 0, "ar", 8),
    ("Democratic_Republic_of_the_Congo", 0, "fr", 6),
    ("South_Africa", 0, "en", 5),
    ("Tanzania", 0, "sw", 4),
    ("Kenya", 0, "sw", 4),
    ("Algeria", 0, "ar", 3),
    ("Uganda", 0, "en", 3),
    ("Sudan", 0, "ar", 3),
    ("Morocco", 0, "ar", 3),
    ("Ghana", 0, "en", 2),
    ("Mozambique", 0, "pt", 2),
    ("Madagascar", 0, "mg", 2),
    ("Cameroon", 0, "fr", 2),
    ("Angola", 0, "pt", 2),
    ("Tunisia", 0, "ar", 1),
    ("Senegal", 0, "fr", 1),
    ("Zambia", 0, "en", 1),
    ("Zimbabwe", 0, "en", 1),
    ("United_States", 3, "en", 30),
    ("Mexico", 3, "es", 12),
    ("Canada", 3, "en", 4),
    ("Guatemala", 3, "es", 1),
    ("Cuba", 3, "es", 1),
    ("Haiti", 3, "fr", 1),
    ("Dominican_Republic", 3, "es", 1),
    ("Honduras", 3, "es", 1),
    ("Nicaragua", 3, "es", 1),
    ("Costa_Rica", 3, "es", 1),
    ("Panama", 3, "es", 1),
    ("Jamaica", 3, "en", 1),
    ("Brazil", 5, "pt", 19),
    ("Colombia", 5, "es", 5),
    ("Argentina", 5, "es", 4),
    ("Peru", 5, "es", 3),
    ("Venezuela", 5, "es", 3),
    ("Chile", 5, "es", 2),
    ("Ecuador", 5, "es", 2),
    ("Bolivia", 5, "es", 1),
    ("Paraguay", 5, "es", 1),
    ("Uruguay", 5, "es", 1),
    ("Australia", 4, "en", 2),
    ("New_Zealand", 4, "en", 1),
    ("Papua_New_Guinea", 4, "en", 1),
];

/// (name, parent index; the root is its own parent).
pub const TAG_CLASSES: [(&str, usize); 71] = [
    ("Thing", 0),
    ("Agent", 0),
    ("Person", 1),
    ("Organisation", 1),
    ("Artist", 2),
    ("MusicalArtist", 4),
    ("Writer", 4),
    ("Athlete", 2),
    ("SoccerPlayer", 7),
    ("BasketballPlayer", 7),
    ("TennisPlayer", 7),
    ("Politician", 2),
    ("OfficeHolder", 2),
    ("Royalty", 2),
    ("Scientist", 2),
    ("Philosopher", 2),
    ("Saint", 2),
    ("MilitaryPerson", 2),
    ("Band", 3),
    ("Company", 3),
    ("SportsTeam", 3),
    ("SoccerClub", 20),
    ("PoliticalParty", 3),
    ("EducationalInstitution", 3),
    ("University", 23),
    ("Work", 0),
    ("MusicalWork", 25),
    ("Album", 26),
    ("Single", 26),
    ("Song", 26),
    ("Film", 25),
    ("TelevisionShow", 25),
    ("WrittenWork", 25),
    ("Book", 32),
    ("Software", 25),
    ("VideoGame", 34),
    ("Place", 0),
    ("PopulatedPlace", 36),
    ("Country", 37),
    ("City", 37),
    ("Settlement", 37),
    ("Town", 40),
    ("Village", 40),
    ("Region", 37),
    ("ArchitecturalStructure", 36),
    ("Building", 44),
    ("Stadium", 44),
    ("NaturalPlace", 36),
    ("Mountain", 47),
    ("River", 47),
    ("Lake", 47),
    ("Event", 0),
    ("SportsEvent", 51),
    ("MilitaryConflict", 51),
    ("Election", 51),
    ("Species", 0),
    ("Animal", 55),
    ("Plant", 55),
    ("Mammal", 56),
    ("Bird", 56),
    ("Insect", 56),
    ("Language", 0),
    ("Award", 0),
    ("Device", 0),
    ("Automobile", 63),
    ("Aircraft", 63),
    ("Weapon", 63),
    ("Food", 0),
    ("Disease", 0),
    ("Holiday", 0),
    ("Currency", 0),
];

/// (browser, weight in percent).
pub const BROWSERS: [(&str, u32); 5] = [
    ("Firefox", 37),
    ("Chrome", 33),
    ("Internet Explorer", 20),
    ("Safari", 7),
    ("Opera", 3),
];

pub const EMAIL_DOMAINS: [&str; 8] = [
    "gmail.com",
    "yahoo.com",
    "hotmail.com",
    "gmx.com",
    "zoho.com",
    "yandex.com",
    "mail.com",
    "hotmail.co.uk",
];

pub const COMPANY_SUFFIXES: [&str; 8] = [
    "Airlines", "Bank", "Telecom", "Motors", "Energy", "Foods", "Software", "Media",
];

/// Short comments, as people write them.
pub const SHORT_COMMENTS: [&str; 16] = [
    "ok", "good", "great", "cool", "thx", "thanks", "LOL", "yes", "no", "maybe", "I see", "right",
    "fine", "duh", "no way!", "roflol",
];

/// Words a message's text is made of.
pub const WORDS: [&str; 64] = [
    "about", "again", "album", "also", "another", "around", "band", "became", "before", "between",
    "born", "called", "century", "city", "country", "during", "early", "first", "film", "former",
    "found", "great", "group", "history", "house", "known", "large", "later", "league", "life",
    "local", "made", "many", "member", "most", "music", "name", "national", "new", "number",
    "often", "old", "only", "part", "people", "played", "public", "record", "region", "released",
    "river", "second", "series", "since", "song", "state", "team", "three", "through", "time",
    "under", "until", "world", "years",
];

const CONSONANTS: &[u8; 20] = b"bcdfghjklmnprstvwxyz";
const VOWELS: &[u8; 5] = b"aeiou";

/// A capitalised word of `syllables` consonant-vowel pairs for `n` (taken modulo
/// 100^syllables): different numbers below that give different words.
pub fn word(mut n: u64, syllables: u32) -> String {
    let mut out = String::with_capacity(2 * syllables as usize);
    for i in 0..syllables {
        let s = (n % 100) as usize;
        n /= 100;
        let c = CONSONANTS[s / 5];
        out.push(if i == 0 {
            c.to_ascii_uppercase() as char
        } else {
            c as char
        });
        out.push(VOWELS[s % 5] as char);
    }
    out
}

/// A permutation of `[0, modulus)` for a modulus of the form 2^a·5^b, as needed to spread
/// consecutive numbers over a name space: a multiplier coprime with it and an offset.
pub fn scatter(i: u64, modulus: u64) -> u64 {
    (i.wrapping_mul(1_000_003) + 12_345) % modulus
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_injective_and_countries_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..10_000 {
            assert!(seen.insert(word(n, 2)), "{n}");
        }
        let mut names = std::collections::HashSet::new();
        for (name, continent, _, weight) in COUNTRIES {
            assert!(names.insert(name) && continent < CONTINENTS.len() && weight > 0);
        }
        for (i, (_, parent)) in TAG_CLASSES.iter().enumerate() {
            assert!(*parent < i || i == 0);
        }
    }
}
