package bot

import "fmt"

// reasonTexts are the short sentences a reply carries instead of an answer, per language.
var reasonTexts = map[string]map[Reason]string{
	"en": {
		ReasonEmptyQuestion:        "Ask me a question after the mention, for example: “how many vacation days do I get?”",
		ReasonRateLimited:          "You're asking faster than I can keep up. Wait a minute and ask again.",
		ReasonNoGroup:              "I can't search any documents for you: your account isn't mapped to an access group. Ask an admin to add you to cita's access configuration.",
		ReasonNoCommonGroup:        "The members of this channel share no access group, so anything I found could reach someone who may not read it. Ask me in a DM.",
		ReasonEmptyIndex:           "No documents are indexed yet, so I have nothing to answer from. An admin can add some with `cita index`.",
		ReasonModelFailure:         "I couldn't answer: the answering service failed. Try again in a minute.",
		ReasonAccessUnknown:        "I couldn't check who can see this reply, so I didn't search. Try again in a minute.",
		ReasonBusy:                 "I'm busy and the line is full: you would be number %d in line. Ask again in a minute.",
		ReasonWorkspaceRateLimited: "This workspace is asking more questions than I'm set to answer per minute. Ask again in a minute.",
		ReasonInternalError:        "Something went wrong on my side while answering; it has been logged for the admins. Try again in a minute.",
		ReasonTimeout:              "I couldn't answer in time: the answer took longer than %s. Try again in a minute.",
		ReasonAttachmentOnly:       "I can't read attached files: I answer from the indexed documentation. Type your question as a message.",
		ReasonEdited:               "I answer new messages, not edits: send the new wording as a new message and I'll answer it.",
		ReasonNotRecorded:          "I couldn't record my answer, so I'm not showing it: I only show answers I can withdraw later. Try again in a minute.",
	},
	"es": {
		ReasonEmptyQuestion:        "Hazme una pregunta después de la mención, por ejemplo: “¿cuántos días de vacaciones tengo?”",
		ReasonRateLimited:          "Estás preguntando más rápido de lo que puedo responder. Espera un minuto y vuelve a preguntar.",
		ReasonNoGroup:              "No puedo buscar documentos para ti: tu cuenta no está asignada a ningún grupo de acceso. Pide a un administrador que te añada a la configuración de acceso de cita.",
		ReasonNoCommonGroup:        "Los miembros de este canal no comparten ningún grupo de acceso, así que lo que encuentre podría llegar a alguien que no puede leerlo. Pregúntame por mensaje directo.",
		ReasonEmptyIndex:           "Todavía no hay documentos indexados, así que no tengo de dónde responder. Un administrador puede añadirlos con `cita index`.",
		ReasonModelFailure:         "No pude responder: falló el servicio que genera las respuestas. Inténtalo de nuevo en un minuto.",
		ReasonAccessUnknown:        "No pude comprobar quién puede ver esta respuesta, así que no busqué. Inténtalo de nuevo en un minuto.",
		ReasonBusy:                 "Estoy ocupado y la fila está llena: serías el número %d en la fila. Vuelve a preguntar en un minuto.",
		ReasonWorkspaceRateLimited: "Este espacio de trabajo está haciendo más preguntas de las que estoy configurado para responder por minuto. Vuelve a preguntar en un minuto.",
		ReasonInternalError:        "Algo falló por mi parte al responder; quedó registrado para los administradores. Inténtalo de nuevo en un minuto.",
		ReasonTimeout:              "No pude responder a tiempo: la respuesta tardó más de %s. Inténtalo de nuevo en un minuto.",
		ReasonAttachmentOnly:       "No puedo leer archivos adjuntos: respondo a partir de la documentación indexada. Escribe tu pregunta como mensaje.",
		ReasonEdited:               "Respondo mensajes nuevos, no ediciones: envía la nueva redacción como un mensaje nuevo y la responderé.",
		ReasonNotRecorded:          "No pude registrar mi respuesta, así que no la muestro: solo muestro respuestas que pueda retirar después. Inténtalo de nuevo en un minuto.",
	},
}

// ReasonText returns the sentence for reason in lang ("en" when lang is unknown); args fill
// the reasons that carry numbers (ReasonBusy: the place in line the question would have had).
func ReasonText(lang string, reason Reason, args ...any) string {
	texts, ok := reasonTexts[lang]
	if !ok {
		texts = reasonTexts["en"]
	}
	if len(args) > 0 {
		return fmt.Sprintf(texts[reason], args...)
	}
	return texts[reason]
}

// hedgeNotes flag a hedged reply (ReplyHedged) on every platform, per language.
var hedgeNotes = map[string]string{
	"en": "Not a sure answer: these are the closest passages I found, and they may not answer your question. Check the sources.",
	"es": "No es una respuesta segura: son los pasajes más cercanos que encontré y puede que no respondan a tu pregunta. Revisa las fuentes.",
}

// HedgeNote returns the line that flags a hedged reply in lang ("en" when unknown). It holds no
// document text.
func HedgeNote(lang string) string {
	if text, ok := hedgeNotes[lang]; ok {
		return text
	}
	return hedgeNotes["en"]
}
