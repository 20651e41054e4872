package server

import (
	"fmt"
	"time"

	"github.com/labstack/echo/v4"
)

// serverTiming tells the page where a request's time went on the server,
// in a Server-Timing header (which the browser's developer tools show
// too): "app", the whole request until its answer was ready, and
// "render", the part spent executing the templates. The page puts them
// beside its own measurement from click to painted board, so a person
// sees what the backends, the rendering and the transfer each cost.
func serverTiming(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		c.Response().Before(func() {
			v := fmt.Sprintf("app;dur=%.3f", ms(time.Since(start)))
			if d, ok := c.Get(ctxRenderTime).(time.Duration); ok {
				v += fmt.Sprintf(", render;dur=%.3f", ms(d))
			}
			c.Response().Header().Set("Server-Timing", v)
		})
		return next(c)
	}
}

// ctxRenderTime holds, in an Echo context, how long rendering the answer
// took.
const ctxRenderTime = "web.renderTime"
