package docs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// description is an OpenAPI 3.1 description, ready to check HTTP exchanges
// against. The schemas are JSON Schema 2020-12, OpenAPI 3.1's dialect, and
// a maintained validator (santhosh-tekuri/jsonschema) checks them; this
// type only finds, for an exchange, the schema that applies: the path (a
// concrete path before a templated one, as OpenAPI says), the operation,
// the response of the status, the media type, and the headers it requires.
type description struct {
	doc      map[string]any // the document as JSON values
	compiler *jsonschema.Compiler
}

// descriptionURL names the document for the validator; it is never fetched.
const descriptionURL = "file:///docs/openapi.yaml"

// loadDescription reads an OpenAPI description in YAML and compiles every
// schema it holds, so that a schema that does not compile, or a $ref that
// leads nowhere, fails here rather than in the middle of a check.
func loadDescription(path string) (*description, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var y any
	if err := yaml.Unmarshal(src, &y); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Through JSON, so that numbers are json.Number as the validator wants.
	js, err := json.Marshal(y)
	if err != nil {
		return nil, fmt.Errorf("%s: not JSON-compatible: %w", path, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, err
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not an object", path)
	}
	if ver, _ := doc["openapi"].(string); !strings.HasPrefix(ver, "3.1.") {
		return nil, fmt.Errorf("%s: openapi %q, want 3.1.x", path, ver)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(descriptionURL, doc); err != nil {
		return nil, err
	}
	d := &description{doc: doc, compiler: c}
	for _, ptr := range d.schemaPointers() {
		if _, err := d.schema(ptr); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// schemaPointers lists the JSON pointers of every schema under paths and
// components.
func (d *description) schemaPointers() []string {
	var out []string
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				p := ptr + "/" + escape(k)
				if k == "schema" || strings.HasPrefix(ptr, "/components/schemas") && !strings.Contains(ptr[len("/components/schemas"):], "/") {
					out = append(out, p)
					continue
				}
				walk(p, e)
			}
		case []any:
			for i, e := range v {
				walk(ptr+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("", d.doc)
	slices.Sort(out)
	return out
}

// schema compiles the schema at a JSON pointer of the document.
func (d *description) schema(ptr string) (*jsonschema.Schema, error) {
	return d.compiler.Compile(descriptionURL + "#" + ptr)
}

// at returns the value at a JSON pointer, following an OpenAPI $ref
// (a response, say) to where it leads, and the pointer it was found at.
func (d *description) at(ptr string) (any, string, error) {
	for range 8 {
		v := any(d.doc)
		for _, tok := range strings.Split(ptr, "/")[1:] {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, ptr, fmt.Errorf("%s: no such place in the description", ptr)
			}
			if v, ok = m[unescape(tok)]; !ok {
				return nil, ptr, fmt.Errorf("%s: no such place in the description", ptr)
			}
		}
		m, ok := v.(map[string]any)
		ref, isRef := m["$ref"].(string)
		if !ok || !isRef {
			return v, ptr, nil
		}
		if !strings.HasPrefix(ref, "#/") {
			return nil, ptr, fmt.Errorf("%s: $ref %q leaves the document", ptr, ref)
		}
		ptr = ref[1:]
	}
	return nil, ptr, fmt.Errorf("%s: $ref chain too long", ptr)
}

// operation returns the pointer of the operation that serves method on
// path (its query, if any, aside).
func (d *description) operation(method, path string) (string, error) {
	path, _, _ = strings.Cut(path, "?")
	paths, _ := d.doc["paths"].(map[string]any)
	var templ string
	for p := range paths {
		if p == path {
			templ = p
			break
		}
		if templ == "" && matchTemplate(p, path) {
			templ = p
		}
	}
	if templ == "" {
		return "", fmt.Errorf("%s %s: the description has no such path", method, path)
	}
	ptr := "/paths/" + escape(templ) + "/" + strings.ToLower(method)
	if _, _, err := d.at(ptr); err != nil {
		return "", fmt.Errorf("%s %s: the description has no such operation", method, path)
	}
	return ptr, nil
}

// matchTemplate reports whether path fits an OpenAPI path template such
// as /api/v1/{endpoint}, a parameter standing for one whole segment.
func matchTemplate(templ, path string) bool {
	ts, ps := strings.Split(templ, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i, t := range ts {
		param := strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}")
		if param && ps[i] == "" || !param && t != ps[i] {
			return false
		}
	}
	return true
}

// checkRequest checks a request's query parameters against the
// operation's, and its body against the operation's requestBody.
func (d *description) checkRequest(method, path, contentType string, body []byte) error {
	op, err := d.operation(method, path)
	if err != nil {
		return err
	}
	if err := d.checkQuery(op, path); err != nil {
		return err
	}
	rb, ptr, err := d.at(op + "/requestBody")
	if err != nil {
		if len(body) == 0 {
			return nil
		}
		return fmt.Errorf("%s %s: the description takes no request body", method, path)
	}
	if req, _ := rb.(map[string]any)["required"].(bool); req && len(body) == 0 {
		return fmt.Errorf("%s %s: the request body is required", method, path)
	}
	return d.checkBody(ptr, contentType, body)
}

// checkQuery checks each query parameter of path against the schema of
// the operation's parameter of that name, as a string.
func (d *description) checkQuery(op, path string) error {
	_, query, _ := strings.Cut(path, "?")
	values, err := url.ParseQuery(query)
	if err != nil {
		return fmt.Errorf("%s: query %q: %v", path, query, err)
	}
	params, _, _ := d.at(op + "/parameters")
	list, _ := params.([]any)
	for name, vs := range values {
		i := slices.IndexFunc(list, func(p any) bool {
			m, _ := p.(map[string]any)
			return m["name"] == name && m["in"] == "query"
		})
		if i < 0 {
			return fmt.Errorf("%s: the description has no query parameter %s", path, name)
		}
		sch, err := d.schema(op + "/parameters/" + strconv.Itoa(i) + "/schema")
		if err != nil {
			return err
		}
		for _, v := range vs {
			if err := sch.Validate(v); err != nil {
				return fmt.Errorf("%s: query parameter %s: %v", path, name, err)
			}
		}
	}
	return nil
}

// checkResponse checks an answer: its status is one the operation
// describes, it has every header the response requires (each valid for its
// schema), and its body is of a described media type and valid for its
// schema.
func (d *description) checkResponse(method, path string, res *http.Response, body []byte) error {
	op, err := d.operation(method, path)
	if err != nil {
		return err
	}
	r, ptr, err := d.at(op + "/responses/" + strconv.Itoa(res.StatusCode))
	if err != nil {
		if r, ptr, err = d.at(op + "/responses/default"); err != nil {
			return fmt.Errorf("%s %s: status %d is not described", method, path, res.StatusCode)
		}
	}
	headers, _ := r.(map[string]any)["headers"].(map[string]any)
	for name := range headers {
		h, hptr, err := d.at(ptr + "/headers/" + escape(name))
		if err != nil {
			return err
		}
		value := res.Header.Get(name)
		if value == "" {
			if req, _ := h.(map[string]any)["required"].(bool); req {
				return fmt.Errorf("%s %s: %d without its required header %s", method, path, res.StatusCode, name)
			}
			continue
		}
		sch, err := d.schema(hptr + "/schema")
		if err != nil {
			return err
		}
		// A header's value is a JSON number when it reads as one, a
		// string otherwise.
		var v any = value
		if n, err := jsonschema.UnmarshalJSON(strings.NewReader(value)); err == nil {
			if _, isNum := n.(json.Number); isNum {
				v = n
			}
		}
		if err := sch.Validate(v); err != nil {
			return fmt.Errorf("%s %s: header %s: %v", method, path, name, err)
		}
	}
	return d.checkBody(ptr, res.Header.Get("Content-Type"), body)
}

// checkBody checks a body against the content of a request body or a
// response found at ptr.
func (d *description) checkBody(ptr, contentType string, body []byte) error {
	content, _, err := d.at(ptr + "/content")
	if err != nil {
		if len(body) == 0 {
			return nil
		}
		return fmt.Errorf("%s: the description has no content here, but the body has %d bytes", ptr, len(body))
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("%s: Content-Type %q: %v", ptr, contentType, err)
	}
	if _, ok := content.(map[string]any)[mt]; !ok {
		return fmt.Errorf("%s: media type %s is not described", ptr, mt)
	}
	sch, err := d.schema(ptr + "/content/" + escape(mt) + "/schema")
	if err != nil {
		return err
	}
	// A body of another media type than JSON (a file uploaded) is checked
	// as a string.
	var v any = string(body)
	if mt == jsonType {
		if v, err = jsonschema.UnmarshalJSON(bytes.NewReader(body)); err != nil {
			return fmt.Errorf("%s: the body is not JSON: %v", ptr, err)
		}
	}
	if err := sch.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%s: %v", ptr, ve)
		}
		return err
	}
	return nil
}

// escape and unescape write a key as a JSON pointer token (RFC 6901).
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func unescape(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}
