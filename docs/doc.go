// Package docs is the project's documentation: the guides (the *.md files)
// and the OpenAPI 3.1 description of the JSON API (openapi.yaml). It holds
// no code; its tests start the real server and check every answer of every
// endpoint against the description, so that the description cannot drift
// from the server unnoticed.
package docs
