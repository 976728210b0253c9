"""GitHub's contract, offline: Stoplight Prism serving GitHub's published OpenAPI description (every REST
request validated against it), GitHub's published GraphQL schema (every GraphQL request validated
against it), and a loopback fake that keeps state (comments, reviews, threads) for multi-push scenarios
and forwards each REST request to Prism for validation. See tests/githubmock/README.md."""
