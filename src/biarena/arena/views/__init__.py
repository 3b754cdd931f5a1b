"""The arena's views: one module per concern, each view a function of the request that `create_app` routes to.

Every view reads the app's `ArenaContext` (`context_of`), calls the store, catalog or leaderboard, and renders a
template; a refusal is raised as an `ArenaRefusal` and rendered in one place (`errors`).
"""
