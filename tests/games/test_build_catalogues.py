import gettext

from django.core.management import call_command


def test_build_catalogues_compiles_every_po_into_a_readable_mo(settings, tmp_path, capsys):
    folder = tmp_path / "xx" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "django.po").write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Fold"\nmsgstr "Пас"\n',
        encoding="utf-8",
    )
    settings.LOCALE_PATHS = [tmp_path]
    call_command("build_catalogues")
    assert "compiled 1 catalogue" in capsys.readouterr().out
    with open(folder / "django.mo", "rb") as fh:
        assert gettext.GNUTranslations(fh).gettext("Fold") == "Пас"
