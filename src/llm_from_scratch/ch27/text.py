"""Learner-facing strings of chapter 27, one catalogue per language.

Code asks for a string by key (``text("report.title")``); an English edition
adds a catalogue with the same keys and touches no logic.
"""

from __future__ import annotations

RU: dict[str, str] = {
    # report and trace headings
    "title": "Глава 27 · одна голова самовнимания без маски",
    "section.inputs": "Входы: строки запросов, ключей и значений",
    "role.query": "Строки запросов: что ищет каждая позиция",
    "role.key": "Строки ключей: по каким признакам позицию находят",
    "role.value": "Строки значений: что позиция отдаёт в смесь",
    "shape": "Форма",
    "section.scores": "Оценки: каждый запрос против каждого ключа",
    "section.scaled": "Масштабированные оценки",
    "scale": "Масштаб 1/√d_k",
    "section.softmax": "Softmax по каждой строке запроса",
    "row_sum": "сумма строки",
    "normalization_axis": "ось нормировки",
    "axis.key": "ключи (key)",
    "section.mixture": "Смесь значений: взвешенные слагаемые и выход",
    "terms": "слагаемые",
    "output_row": "выход",
    "section.backward": "Обратный проход (Ō = I, L = ⟨O, Ō⟩)",
    "loss": "L",
    "section.shapes": "Формы и независимость элементов пакета",
    "batch_independent": "элементы пакета независимы",
    "batch_dependent": "элементы пакета влияют друг на друга",
    "empty_batch": "пустой пакет",
    "narrow_values": "d_v ≠ d_k",
    "section.single": "Один токен: сравнивать не с чем",
    "zero_grad_query": "градиент запроса равен нулю",
    "zero_grad_key": "градиент ключа равен нулю",
    "section.properties": "Свойства головы",
    "identical_keys": "одинаковые ключи → строки весов",
    "permutation": "совместная перестановка позиций {order}: выход переставлен так же, расхождение",
    "section.visibility": "Граница видимости",
    "all_keys_visible": "маски нет: каждому запросу видны все позиции ключей",
    "section.rejected": "Отклонённые входы",
    "rejected": "отклонено",
    "kind": "вид ошибки",
    "offending": "что не так",
    "section.checks": "Численные проверки",
    "row_sum_deviation": "наибольшее отклонение суммы строки от 1",
    "gradcheck": "проверка градиентов центральными разностями",
    "gradcheck.passed": "пройдена",
    "gradcheck.failed": "НЕ пройдена",
    "coordinates": "проверено координат (Q+K+V)",
    "step": "шаг",
    "tolerance": "допуск",
    "closed_form": "наибольшее расхождение autodiff и формул",
    "replay": "повторный запуск",
    "replay.bitwise": "побитово совпадает",
    "replay.differs": "РАЗЛИЧАЕТСЯ",
    "section.scale_example": "Пример масштаба: оценки [1, 0]",
    "unscaled_weight": "вес первой позиции без масштаба",
    "scaled_weight": "вес первой позиции с масштабом при d_k = 2",
    "section.history": "История: откуда берутся запросы и ключи",
    "history.recurrent-fixed-context":
        "Фиксированный рекуррентный контекст: всё исходное предложение сжато в один вектор.",
    "history.additive-encoder-decoder-alignment":
        "Аддитивное выравнивание энкодера и декодера: на каждом шаге декодера новый контекст "
        "взвешивает аннотации энкодера.",
    "history.scaled-dot-product-self-attention":
        "Самовнимание на масштабированных скалярных произведениях: один слой оценивает "
        "все пары позиций одной последовательности.",
    "history.encoder_decoder": "выравнивание: запросы — состояния декодера, ключи — аннотации энкодера",
    "history.self": "самовнимание: запросы и ключи — позиции одной последовательности",
    "yes": "да",
    "no": "нет",
    # errors, explained
    "error.input-rank": "Нужны три оси: пакет, токены, признаки.",
    "error.batch-mismatch": "У запросов, ключей и значений должен быть один размер пакета.",
    "error.token-mismatch": "Запросы, ключи и значения должны описывать одно и то же число токенов.",
    "error.empty-token-axis": "Без единой позиции ключа строку весов нечем нормировать.",
    "error.query-key-width-mismatch":
        "Скалярное произведение требует одной ширины: d_k у запросов и ключей должна совпадать.",
    "error.empty-feature-width": "Ширина признаков не может быть нулевой.",
    "error.non-finite-input": "Во входах допустимы только конечные числа; NaN и ±∞ отклоняются.",
    "error.stage-failure": "Вычисление оборвалось на одном из этапов прямого прохода.",
}

CATALOGUES: dict[str, dict[str, str]] = {"ru": RU}
LANGUAGE = "ru"


def text(key: str, **fields: object) -> str:
    """The string ``key`` in the chapter's language, with ``fields`` filled in."""
    template = CATALOGUES[LANGUAGE][key]
    return template.format(**fields) if fields else template
