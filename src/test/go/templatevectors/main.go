// Command templatevectors fills in what Go's own text/template gives for the vectors in
// src/test/resources/templates/go-text-template-vectors.json, so that GoTemplateVectorsTest compares
// node-labeller's template engine with Go rather than with hand-written expectations.
//
// The data is typed as NFD types it (pkg/apis/nfd/nodefeaturerule/rule.go: matchedFeatures, MatchedElement)
// and templates are parsed with Option("missingkey=error") as NFD parses them. Vectors marked "sprig", "go" or
// "bound" (Sprig functions, features of a newer Go than the one running this, node-labeller's own limits) are
// left as written.
//
// Not part of the build (Go is not needed to build or test node-labeller). To regenerate:
//
//	cd src/test/go/templatevectors && go run . ../../resources/templates/go-text-template-vectors.json > /tmp/v.json
//
// then review the difference and copy /tmp/v.json over the vector file.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"text/template"
)

type MatchedElement map[string]string
type domainMatchedFeatures map[string][]MatchedElement
type matchedFeatures map[string]domainMatchedFeatures

func main() {
	raw, _ := os.ReadFile(os.Args[1])
	var doc map[string]interface{}
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(err)
	}
	var typed struct {
		Data matchedFeatures `json:"data"`
	}
	if err := json.Unmarshal(raw, &typed); err != nil {
		panic(err)
	}
	for _, v := range doc["vectors"].([]interface{}) {
		vec := v.(map[string]interface{})
		if vec["sprig"] != nil || vec["go"] != nil || vec["bound"] != nil {
			continue
		}
		delete(vec, "want")
		delete(vec, "error")
		delete(vec, "goError")
		t, err := template.New("").Option("missingkey=error").Parse(vec["template"].(string))
		if err != nil {
			vec["error"] = "parse"
			vec["goError"] = err.Error()
			continue
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, typed.Data); err != nil {
			vec["error"] = "exec"
			vec["goError"] = err.Error()
			continue
		}
		vec["want"] = buf.String()
	}
	out, _ := json.MarshalIndent(doc, "", "  ")
	fmt.Println(string(out))
}
