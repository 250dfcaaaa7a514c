from django.urls import path

from accounts import views

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("profile/daily-bonus/", views.claim_daily_bonus, name="claim_daily_bonus"),
    path("profile/refill/", views.claim_refill, name="claim_refill"),
    path("profile/privacy/", views.set_privacy, name="set_privacy"),
    path("profile/face/", views.set_face_view, name="set_face"),
    path("profile/break/", views.take_break_view, name="take_break"),
    path("responsible-play/", views.responsible_play, name="responsible_play"),
    path("profile/play-time/", views.set_play_time_limit_view, name="set_play_time_limit"),
    path("profile/reality-check/", views.set_reality_check_view, name="set_reality_check"),
    path("reality-check/continue/", views.reality_check_continue, name="reality_check_continue"),
    path("reality-check/break/", views.reality_check_break, name="reality_check_break"),
    path("profile/loss-limit/", views.set_loss_limit_view, name="set_loss_limit"),
]
