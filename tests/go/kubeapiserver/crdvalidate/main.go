// Command crdvalidate runs upstream apiextensions-apiserver's own CRD validation for create
// (defaulting, conversion to the internal type, validation.ValidateCustomResourceDefinition
// with the default feature gates) without a server, as the oracle of the Rust CEL
// differential (crates/capi-cel/tests).
//
// It reads one CustomResourceDefinition (apiextensions.k8s.io/v1, JSON) per line on stdin and
// writes one JSON line per input on stdout:
//
//	{"errors":[{"type":"FieldValueInvalid","field":"spec...","detail":"..."}]}
//
// or {"decode_error":"..."} when the line is not a CRD.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
)

type fieldError struct {
	Type   string `json:"type"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

type result struct {
	Errors      []fieldError `json:"errors"`
	DecodeError string       `json:"decode_error,omitempty"`
}

func judge(line []byte) result {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(line, &crd); err != nil {
		return result{Errors: []fieldError{}, DecodeError: err.Error()}
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&crd)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&crd, &internal, nil); err != nil {
		return result{Errors: []fieldError{}, DecodeError: err.Error()}
	}
	errs := validation.ValidateCustomResourceDefinition(context.Background(), &internal)
	out := result{Errors: []fieldError{}}
	for _, e := range errs {
		out.Errors = append(out.Errors, fieldError{Type: string(e.Type), Field: e.Field, Detail: e.Detail})
	}
	return out
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 64<<20)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		if err := enc.Encode(judge(in.Bytes())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
