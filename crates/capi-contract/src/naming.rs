//! CRD naming as upstream computes it: `CalculateCRDName(group, kind)` =
//! `plural(lowercase(kind)) + "." + group`, with flect's English pluralisation.
//!
//! The pluraliser reproduces flect v1.0.3 for the inputs CRD naming produces (a single
//! lower-case word): the irregular dictionary, then the ordered suffix rules, then `s`.
//! Separators and acronyms (which lower-cased kinds never contain) are not handled.

/// Irregular words: (singular, plural, alternative plural, flags).
const DICTIONARY: &[(&str, &str, &str, u8)] = &[
    ("aircraft", "aircraft", "", 0),
    ("beef", "beef", "beefs", 0),
    ("bison", "bison", "", 0),
    ("blues", "blues", "", UNIDIRECTIONAL),
    ("chassis", "chassis", "", 0),
    ("deer", "deer", "", 0),
    ("fish", "fish", "fishes", 0),
    ("moose", "moose", "", 0),
    ("police", "police", "", 0),
    ("salmon", "salmon", "salmons", 0),
    ("series", "series", "", 0),
    ("sheep", "sheep", "", 0),
    ("shrimp", "shrimp", "shrimps", 0),
    ("species", "species", "", 0),
    ("swine", "swine", "swines", 0),
    ("trout", "trout", "trouts", 0),
    ("tuna", "tuna", "tunas", 0),
    ("you", "you", "", 0),
    ("child", "children", "", 0),
    ("ox", "oxen", "", EXACT),
    ("foot", "feet", "", 0),
    ("goose", "geese", "", 0),
    ("man", "men", "", 0),
    ("human", "humans", "", 0),
    ("louse", "lice", "", EXACT),
    ("mouse", "mice", "", 0),
    ("tooth", "teeth", "", 0),
    ("woman", "women", "", 0),
    ("die", "dice", "", EXACT),
    ("person", "people", "", 0),
    ("adieu", "adieux", "adieus", 0),
    ("fabliau", "fabliaux", "", 0),
    ("bureau", "bureaus", "bureaux", 0),
    ("criterion", "criteria", "", 0),
    ("ganglion", "ganglia", "ganglions", 0),
    ("lexicon", "lexica", "lexicons", 0),
    ("mitochondrion", "mitochondria", "mitochondrions", 0),
    ("noumenon", "noumena", "", 0),
    ("phenomenon", "phenomena", "", 0),
    ("taxon", "taxa", "", 0),
    ("media", "media", "", 0),
    ("medium", "media", "mediums", UNIDIRECTIONAL),
    ("stadium", "stadiums", "stadia", 0),
    ("aquarium", "aquaria", "aquariums", 0),
    ("auditorium", "auditoria", "auditoriums", 0),
    ("symposium", "symposia", "symposiums", 0),
    ("curriculum", "curriculums", "curricula", 0),
    ("quota", "quotas", "", 0),
    ("alumnus", "alumni", "alumnuses", 0),
    ("bacillus", "bacilli", "", 0),
    ("cactus", "cacti", "cactuses", 0),
    ("coccus", "cocci", "", 0),
    ("focus", "foci", "focuses", 0),
    ("locus", "loci", "locuses", 0),
    ("nucleus", "nuclei", "nucleuses", 0),
    ("octopus", "octupuses", "octopi", 0),
    ("radius", "radii", "radiuses", 0),
    ("syllabus", "syllabi", "", 0),
    ("corpus", "corpora", "corpuses", 0),
    ("genus", "genera", "", 0),
    ("alumna", "alumnae", "", 0),
    ("vertebra", "vertebrae", "", 0),
    ("differentia", "differentiae", "", 0),
    ("minutia", "minutiae", "", 0),
    ("vita", "vitae", "", 0),
    ("larva", "larvae", "", 0),
    ("postcava", "postcavae", "", 0),
    ("praecava", "praecavae", "", 0),
    ("uva", "uvae", "", 0),
    ("apex", "apices", "apexes", 0),
    ("codex", "codices", "codexes", 0),
    ("index", "indices", "indexes", 0),
    ("latex", "latices", "latexes", 0),
    ("vertex", "vertices", "vertexes", 0),
    ("vortex", "vortices", "vortexes", 0),
    ("appendix", "appendices", "appendixes", 0),
    ("radix", "radices", "radixes", 0),
    ("helix", "helices", "helixes", 0),
    ("axis", "axes", "", EXACT),
    ("crisis", "crises", "", 0),
    ("ellipsis", "ellipses", "", UNIDIRECTIONAL),
    ("genesis", "geneses", "", 0),
    ("oasis", "oases", "", 0),
    ("thesis", "theses", "", 0),
    ("testis", "testes", "", 0),
    ("base", "bases", "", 0),
    ("basis", "bases", "", UNIDIRECTIONAL),
    ("alias", "aliases", "", EXACT),
    ("vedalia", "vedalias", "", 0),
    ("use", "uses", "", EXACT),
    ("abuse", "abuses", "", 0),
    ("cause", "causes", "", 0),
    ("clause", "clauses", "", 0),
    ("cruse", "cruses", "", 0),
    ("excuse", "excuses", "", 0),
    ("fuse", "fuses", "", 0),
    ("house", "houses", "", 0),
    ("misuse", "misuses", "", 0),
    ("muse", "muses", "", 0),
    ("pause", "pauses", "", 0),
    ("ache", "aches", "", 0),
    ("topaz", "topazes", "", 0),
    ("buffalo", "buffaloes", "buffalos", 0),
    ("potato", "potatoes", "", 0),
    ("tomato", "tomatoes", "", 0),
    ("equipment", "equipment", "", 0),
    ("information", "information", "", 0),
    ("jeans", "jeans", "", 0),
    ("money", "money", "", 0),
    ("news", "news", "", 0),
    ("rice", "rice", "", 0),
    ("dwarf", "dwarfs", "dwarves", 0),
    ("hoof", "hoofs", "hooves", 0),
    ("thief", "thieves", "", 0),
    ("chive", "chives", "", 0),
    ("hive", "hives", "", 0),
    ("move", "moves", "", 0),
    ("movie", "movies", "", 0),
    ("cookie", "cookies", "", 0),
    ("pretorium", "pretoriums", "", 0),
    ("agenda", "agendas", "", 0),
    ("formula", "formulas", "formulae", 0),
    ("shoe", "shoes", "", 0),
    ("toe", "toes", "", EXACT),
    ("graffiti", "graffiti", "", 0),
    ("ID", "IDs", "", EXACT),
];

const UNIDIRECTIONAL: u8 = 1;
const EXACT: u8 = 2;

/// Suffix rules in priority order: (singular suffix, plural suffix).
const SUFFIX_RULES: &[(&str, &str)] = &[
    ("tive", "tives"),
    ("eaf", "eaves"),
    ("oaf", "oaves"),
    ("afe", "aves"),
    ("arf", "arves"),
    ("rfe", "rves"),
    ("rf", "rves"),
    ("lf", "lves"),
    ("fe", "ves"),
    ("ay", "ays"),
    ("ey", "eys"),
    ("oy", "oys"),
    ("quy", "quies"),
    ("uy", "uys"),
    ("y", "ies"),
    ("eau", "eaux"),
    ("bula", "bulae"),
    ("dula", "bulae"),
    ("lula", "bulae"),
    ("nula", "bulae"),
    ("vula", "bulae"),
    ("hedron", "hedra"),
    ("ium", "ia"),
    ("seum", "seums"),
    ("eum", "ea"),
    ("oum", "oa"),
    ("stracum", "straca"),
    ("dum", "da"),
    ("elum", "ela"),
    ("ilum", "ila"),
    ("olum", "ola"),
    ("ulum", "ula"),
    ("llum", "lla"),
    ("ylum", "yla"),
    ("imum", "ima"),
    ("ernum", "erna"),
    ("gnum", "gna"),
    ("brum", "bra"),
    ("crum", "cra"),
    ("terum", "tera"),
    ("serum", "sera"),
    ("trum", "tra"),
    ("antum", "anta"),
    ("atum", "ata"),
    ("entum", "enta"),
    ("etum", "eta"),
    ("itum", "ita"),
    ("otum", "ota"),
    ("utum", "uta"),
    ("ctum", "cta"),
    ("ovum", "ova"),
    ("trix", "trices"),
    ("iasis", "iases"),
    ("mesis", "meses"),
    ("kinesis", "kineses"),
    ("resis", "reses"),
    ("gnosis", "gnoses"),
    ("opsis", "opses"),
    ("ysis", "yses"),
    ("ouse", "ouses"),
    ("lause", "lauses"),
    ("us", "uses"),
    ("ch", "ches"),
    ("io", "ios"),
    ("sh", "shes"),
    ("ss", "sses"),
    ("ez", "ezzes"),
    ("iz", "izzes"),
    ("tz", "tzes"),
    ("zz", "zzes"),
    ("ano", "anos"),
    ("lo", "los"),
    ("to", "tos"),
    ("oo", "oos"),
    ("o", "oes"),
    ("x", "xes"),
    ("S", "Ses"),
];

fn is_known_plural(word: &str) -> bool {
    DICTIONARY.iter().any(|(_, plural, alt, flags)| {
        flags & UNIDIRECTIONAL == 0 && (*plural == word || (!alt.is_empty() && *alt == word))
    })
}

/// Ordered suffix rules: for every non-exact dictionary word in reverse order, then for every
/// suffix rule: first a no-op rule for the plural form, then singular -> plural.
fn rules() -> impl Iterator<Item = (&'static str, &'static str)> {
    let words = DICTIONARY
        .iter()
        .rev()
        .filter(|(.., flags)| flags & EXACT == 0)
        .map(|(s, p, ..)| (*s, *p));
    words.chain(SUFFIX_RULES.iter().copied())
}

/// English plural of `word` as flect v1.0.3 computes it (single word input).
///
/// ```
/// use capi_contract::naming::pluralize;
/// assert_eq!(pluralize("awsmachinepool"), "awsmachinepools");
/// assert_eq!(pluralize("clusterclass"), "clusterclasses");
/// assert_eq!(pluralize("fooproxy"), "fooproxies");
/// assert_eq!(pluralize("metal3data"), "metal3data");
/// ```
#[must_use]
pub fn pluralize(word: &str) -> String {
    if word.is_empty() {
        return String::new();
    }
    if let Some((_, plural, ..)) = DICTIONARY.iter().find(|(s, ..)| *s == word) {
        return (*plural).to_owned();
    }
    let lower = word.to_lowercase();
    if is_known_plural(word) || is_known_plural(&lower) {
        return word.to_owned();
    }
    if let Some((_, plural, ..)) = DICTIONARY.iter().find(|(s, ..)| *s == lower) {
        return (*plural).to_owned();
    }
    for (singular, plural) in rules() {
        if word.ends_with(plural) {
            return word.to_owned();
        }
        if let Some(stem) = word.strip_suffix(singular) {
            return format!("{stem}{plural}");
        }
    }
    if lower.ends_with('s') {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// The CRD name upstream expects for a group and kind: `plural(lowercase(kind)).group`.
///
/// ```
/// use capi_contract::naming::crd_name;
/// assert_eq!(crd_name("infrastructure.cluster.x-k8s.io", "DockerMachinePool"),
///            "dockermachinepools.infrastructure.cluster.x-k8s.io");
/// ```
#[must_use]
pub fn crd_name(group: &str, kind: &str) -> String {
    format!("{}.{group}", pluralize(&kind.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_kind_table() {
        let cases = [
            ("machinepool", "machinepools"),
            ("dockermachinepool", "dockermachinepools"),
            ("awsmanagedmachinepool", "awsmanagedmachinepools"),
            ("dockermachinepooltemplate", "dockermachinepooltemplates"),
            ("kubeadmconfig", "kubeadmconfigs"),
            ("clusterclass", "clusterclasses"),
            ("fooproxy", "fooproxies"),
            ("foolibrary", "foolibraries"),
            ("policy", "policies"),
            ("foogateway", "foogateways"),
            ("fookey", "fookeys"),
            ("foobuy", "foobuys"),
            ("foostatus", "foostatuses"),
            ("foobus", "foobuses"),
            ("ipaddress", "ipaddresses"),
            ("foobox", "fooboxes"),
            ("fooindex", "fooindices"),
            ("foovertex", "foovertices"),
            ("foomatrix", "foomatrices"),
            ("foochurch", "foochurches"),
            ("foobrush", "foobrushes"),
            ("fooquiz", "fooquizzes"),
            ("foowaltz", "foowaltzes"),
            ("foophoto", "foophotos"),
            ("foopiano", "foopianos"),
            ("fooradio", "fooradios"),
            ("foozoo", "foozoos"),
            ("fooinfo", "fooinfoes"),
            ("foovideo", "foovideoes"),
            ("foohero", "fooheroes"),
            ("fooleaf", "fooleaves"),
            ("foocalf", "foocalves"),
            ("fooknife", "fooknives"),
            ("foosafe", "foosaves"),
            ("foodwarf", "foodwarfs"),
            ("foodatum", "foodata"),
            ("foomedium", "foomedia"),
            ("metal3data", "metal3data"),
            ("foometadata", "foometadata"),
            ("foostadium", "foostadiums"),
            ("foocurriculum", "foocurriculums"),
            ("fooman", "foomen"),
            ("foowoman", "foowomen"),
            ("foohuman", "foohumans"),
            ("fooperson", "foopeople"),
            ("foochild", "foochildren"),
            ("foomouse", "foomice"),
            ("foohouse", "foohouses"),
            ("foogoose", "foogeese"),
            ("foofoot", "foofeet"),
            ("foosheep", "foosheep"),
            ("fooseries", "fooseries"),
            ("fooinformation", "fooinformation"),
            ("foodeer", "foodeer"),
            ("fooaxis", "fooaxis"),
            ("fooalias", "fooalias"),
            ("foosettings", "foosettings"),
            ("machines", "machines"),
            ("fooanalysis", "fooanalyses"),
            ("foobasis", "foobases"),
            ("foomovie", "foomovies"),
            ("foocookie", "foocookies"),
            ("fooshoe", "fooshoes"),
            ("footoe", "footoes"),
            ("foodie", "foodies"),
            ("ox", "oxen"),
            ("axis", "axes"),
            ("die", "dice"),
            ("alias", "aliases"),
            ("use", "uses"),
            ("vm", "vms"),
            ("api", "apis"),
            ("id", "ids"),
        ];
        for (input, want) in cases {
            assert_eq!(pluralize(input), want, "{input}");
        }
    }
}
