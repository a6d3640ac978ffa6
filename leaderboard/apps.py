from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The data layer announces; the layers above subscribe here, so it never imports them.
        from leaderboard.board import listeners as board
        from leaderboard.models import marks, signals
        from leaderboard.releases import rescoring
        from leaderboard.web import warm

        marks.connect_signals()
        signals.run_finished.connect(board.mark_finished_run, dispatch_uid="board-run-finished")
        signals.run_finished.connect(rescoring.after_scoring, dispatch_uid="release-run-finished")
        signals.board_marked.connect(warm.refresh_and_warm, dispatch_uid="board-refresh")
        signals.board_scope_wanted.connect(board.build_wanted_scope, dispatch_uid="board-scope")
