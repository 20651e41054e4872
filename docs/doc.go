// Package docs is the project's documentation: the guides (the *.md files)
// and the OpenAPI 3.1 description of the JSON API (openapi.yaml). It holds
// no code; its tests start the real server and check every answer of every
// endpoint against the description, and hold the import tables of
// architecture.md to what go list shows, so that neither the description
// nor the architecture can drift from the code unnoticed.
package docs
