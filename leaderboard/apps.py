from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The board's marks (data layer) are told who refreshes the stored board (services).
        from leaderboard.board import store, warm
        from leaderboard.board.marks import connect_signals

        connect_signals(refresher=warm.refresh_and_warm, builder=store.ensure)
