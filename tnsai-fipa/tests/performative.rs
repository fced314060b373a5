//! The 22 communicative acts: names, categories, parsing and serde.

use std::collections::HashSet;

use tnsai_fipa::{Category, Performative};

#[test]
fn all_lists_the_22_acts_once() {
    let all = Performative::all();
    assert_eq!(all.len(), 22);
    let distinct: HashSet<_> = all.iter().collect();
    assert_eq!(distinct.len(), 22);
}

#[test]
fn categories_follow_the_contract() {
    use Performative::*;
    let expected = [
        (
            Category::Assertive,
            vec![Inform, InformIf, InformRef, Confirm, Disconfirm],
        ),
        (
            Category::Directive,
            vec![
                Request,
                RequestWhen,
                RequestWhenever,
                QueryIf,
                QueryRef,
                Cfp,
                Subscribe,
                Propagate,
                Proxy,
            ],
        ),
        (Category::Commissive, vec![Agree, Refuse, Propose]),
        (
            Category::Declarative,
            vec![
                AcceptProposal,
                RejectProposal,
                Cancel,
                Failure,
                NotUnderstood,
            ],
        ),
        (Category::Expressive, vec![]),
    ];
    for (category, members) in expected {
        let actual: HashSet<Performative> = Performative::all()
            .iter()
            .copied()
            .filter(|p| p.category() == category)
            .collect();
        assert_eq!(actual, members.into_iter().collect(), "{category}");
    }
}

#[test]
fn fipa_names_display_and_parse_back() {
    for &p in Performative::all() {
        let name = p.to_string();
        assert_eq!(name, p.as_str());
        assert_eq!(name.parse::<Performative>(), Ok(p));
        assert_eq!(name.to_uppercase().parse::<Performative>(), Ok(p));
        assert_eq!(
            name.to_uppercase()
                .replace('-', "_")
                .parse::<Performative>(),
            Ok(p)
        );
    }
    assert_eq!(Performative::AcceptProposal.as_str(), "accept-proposal");
    assert_eq!(Performative::NotUnderstood.as_str(), "not-understood");
    assert_eq!(Performative::RequestWhenever.as_str(), "request-whenever");
}

#[test]
fn unknown_names_are_clear_errors() {
    for bad in ["", "shout", "inform ", "accept proposal", "requests"] {
        let err = bad.parse::<Performative>().err();
        let Some(err) = err else {
            panic!("`{bad}` parsed");
        };
        assert_eq!(err.name, bad);
        assert!(err.to_string().contains("unknown performative"));
    }
}

#[test]
fn serde_uses_the_fipa_name() -> Result<(), serde_json::Error> {
    assert_eq!(
        serde_json::to_string(&Performative::AcceptProposal)?,
        "\"accept-proposal\""
    );
    assert_eq!(
        serde_json::from_str::<Performative>("\"query-ref\"")?,
        Performative::QueryRef
    );
    assert!(serde_json::from_str::<Performative>("\"yell\"").is_err());
    assert_eq!(
        serde_json::to_string(&Category::Directive)?,
        "\"directive\""
    );
    Ok(())
}
