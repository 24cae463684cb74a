'use strict';
// The admin's autocomplete (Select2) draws a combobox over each select, named only by the
// choice it shows: nothing, when nothing is chosen. Name it by its field too (the select's
// <label>, or the aria-label a list row's select carries): "Organisation Lablup Inc",
// "Recurrence of", so that a screen reader says what it is for.
{
    const nameAutocompletes = () => {
        document.querySelectorAll('select.admin-autocomplete').forEach((select) => {
            const label = select.getAttribute('aria-label')
                || (select.labels.length ? select.labels[0].textContent.trim().replace(/:$/, '') : '');
            const box = select.nextElementSibling;
            const combobox = box && box.querySelector('.select2-selection[role=combobox]');
            const shown = box && box.querySelector('.select2-selection__rendered');
            if (!label || !combobox || !shown || document.getElementById(`${select.id}-name`)) {
                return;
            }
            const name = document.createElement('span');
            name.id = `${select.id}-name`;
            name.hidden = true;
            name.textContent = label;
            box.append(name);
            combobox.setAttribute('aria-labelledby', `${name.id} ${shown.id}`);
            // The choice shown is a read-only textbox of its own: it needs the name as well.
            shown.setAttribute('aria-label', label);
        });
    };
    // Whenever Select2 draws a box (on the page's load, in a row added later), whatever the
    // order the admin's scripts run in: an observer's callback runs before the next task.
    document.addEventListener('DOMContentLoaded', () => {
        nameAutocompletes();
        new MutationObserver(nameAutocompletes).observe(document.body, {childList: true, subtree: true});
    });
}
