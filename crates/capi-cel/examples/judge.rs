//! Reads one `openAPIV3Schema` (JSON) per line on stdin and prints the CEL report of each as
//! one JSON line: `{"errors":[{"type","field","detail","exact"}],"not_judged":[...],"total":N}`.

use std::io::BufRead;

fn main() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let Ok(schema) = serde_json::from_str::<serde_json::Value>(&line) else {
            println!("{{\"decode_error\":true}}");
            continue;
        };
        let r = capi_cel::compile_crd_version(&schema);
        let errors: Vec<_> = r
            .errors
            .iter()
            .map(|e| serde_json::json!({"type": e.kind.code(), "field": e.field_path, "detail": e.detail, "exact": e.detail_exact}))
            .collect();
        let nj: Vec<_> = r
            .not_judged
            .iter()
            .map(|n| format!("{}: {}", n.field_path, n.reason))
            .collect();
        let costs: Vec<_> = r
            .rules
            .iter()
            .map(|c| serde_json::json!([c.field_path, c.rule, c.message_expression]))
            .collect();
        println!(
            "{}",
            serde_json::json!({"errors": errors, "not_judged": nj, "total": r.total_cost, "costs": costs})
        );
    }
}
